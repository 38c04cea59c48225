"""A session's escalation state across processes: each `ask --session` is a new process, and the state the
earlier ones left is where the next one starts; `prompt` previews in between store nothing; `analyze
--session` in yet another process sees where the session is."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
# Elevated distress, not crisis (checked with `analyze`): three in a row are needed to reach grounding
# presence, so only a state kept between processes gets there. None suggests anything, so the echoed
# replies never leave a suggestion for the next message to ignore.
DISTRESS = (
    "I can't cope anymore, everything is falling apart and I can't stop crying",
    "I feel completely hopeless and I'm panicking, I can't breathe",
    "I'm so overwhelmed I can't function, I haven't slept in days and I'm falling apart",
    "I'm having a panic attack and I can't calm down",
)

pytestmark = pytest.mark.integration


def daemon(tmp_path: Path, *args: str) -> str:
    """Run `python main.py --config <echo> ARGS` in a new process over `tmp_path/data`; its stdout."""
    config = tmp_path / "echo.yaml"
    config.write_text(ECHO_CONFIG)
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data")}
    result = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def stored_rows(tmp_path: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(tmp_path / "data" / "session_state.sqlite3")
    try:
        return db.execute("SELECT * FROM session_state").fetchall()
    finally:
        db.close()


def test_ask_processes_escalate_a_session_and_a_later_process_sees_it(tmp_path: Path) -> None:
    messages = tmp_path / "distress.txt"
    messages.write_text("\n".join(DISTRESS) + "\n")
    read = json.loads(daemon(tmp_path, "analyze", "--file", str(messages), "--json"))["results"]
    assert [r["tone"] for r in read] == ["elevated"] * len(DISTRESS)  # what the test relies on

    first = json.loads(daemon(tmp_path, "ask", DISTRESS[0], "--json"))
    session = first["session_id"]
    daemon(tmp_path, "ask", DISTRESS[1], "--session", session, "--json")
    before = stored_rows(tmp_path)
    assert [(r[0], r[1], r[2]) for r in before] == [(session, "validate_and_suggest", 2)]

    preview = daemon(tmp_path, "prompt", DISTRESS[2], "--session", session)  # the messages, as sent
    assert "steady, calm presence" in preview  # the preview is the third distressed turn...
    assert stored_rows(tmp_path) == before  # ...and stores nothing, not even a timestamp

    daemon(tmp_path, "ask", DISTRESS[2], "--session", session, "--json")
    [row] = stored_rows(tmp_path)
    assert (row[1], row[2], row[3]) == ("grounding_presence", 1, 3)  # state, turns in it, turns

    seen = json.loads(daemon(tmp_path, "analyze", DISTRESS[3], "--session", session, "--json"))
    assert seen["escalation"]["state"] == "grounding_presence"
    assert seen["escalation"]["turns_in_state"] == 2  # with this message: a preview of the next turn
    assert {"intent", "confidence", "tone", "topics", "entities", "rewritten_query"} <= set(seen)
    assert stored_rows(tmp_path) == [row]  # analyze stores nothing either
