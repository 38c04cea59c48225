"""Reminders as a user meets them in processes: `task add|list|remove` (beside nothing else running), a
time that is not a time refused with a question, and a reminder that came due while no front end ran
printed when the terminal chat starts."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.integration.data_cli import main

PARIS_QUIET = "user:\n  timezone: Europe/Paris\ntasks:\n  os_notifications: false\n"

pytestmark = pytest.mark.integration


def _daemon(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return main(tmp_path, tmp_path / "data", *args, stdin=stdin, config_extra=PARIS_QUIET)


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
