"""Reminders as a user meets them in processes: `task add|list|remove` (beside nothing else running), a
time that is not a time refused with a question, and a reminder that came due while no front end ran
printed when the terminal chat starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = (
    "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
    "user:\n  timezone: Europe/Paris\ntasks:\n  os_notifications: false\n"
)

pytestmark = pytest.mark.integration


def _daemon(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG)
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        input=stdin,
    )


def test_task_add_list_and_remove_keep_their_json_contract(tmp_path: Path) -> None:
    added = _daemon(tmp_path, "task", "add", "water the plants", "--when", "every day at 8", "--json")
    assert added.returncode == 0, added.stderr
    task = json.loads(added.stdout)["task"]
    assert task["repeats"] == "every day at 08:00" and task["next_at"].endswith(("+01:00", "+02:00"))
    listed = json.loads(_daemon(tmp_path, "task", "list", "--json").stdout)
    assert listed["timezone"] == "Europe/Paris" and [t["id"] for t in listed["tasks"]] == [task["id"]]
    removed = _daemon(tmp_path, "task", "remove", task["id"], "--json")
    assert json.loads(removed.stdout)["task"]["status"] == "removed"
    assert json.loads(_daemon(tmp_path, "task", "list", "--json").stdout)["tasks"] == []
    every = json.loads(_daemon(tmp_path, "task", "list", "--all", "--json").stdout)["tasks"]
    assert [t["status"] for t in every] == ["removed"]  # kept, never deleted


def test_a_time_that_is_not_a_time_is_refused_with_a_question_and_nothing_is_added(tmp_path: Path) -> None:
    refused = _daemon(tmp_path, "task", "add", "call mum", "--when", "next blursday")
    assert refused.returncode == 2
    assert "could not read 'next blursday'" in refused.stderr and "When should it be?" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert json.loads(_daemon(tmp_path, "task", "list", "--all", "--json").stdout)["tasks"] == []


def test_a_reminder_due_while_no_front_end_ran_is_printed_when_the_chat_starts(tmp_path: Path) -> None:
    added = _daemon(tmp_path, "task", "add", "take the bread out", "--when", "in 1 second")
    assert added.returncode == 0, added.stderr
    time.sleep(1.5)
    chat = _daemon(tmp_path, "cli", stdin="/quit\n")
    assert chat.returncode == 0, chat.stderr
    assert "[Reminder: take the bread out]" in chat.stdout
    assert chat.stdout.index("[Reminder: take the bread out]") < chat.stdout.index("you> ")
    again = _daemon(tmp_path, "cli", stdin="/quit\n")
    assert "take the bread out" not in again.stdout  # shown once
