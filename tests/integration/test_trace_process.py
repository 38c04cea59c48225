"""`trace show` as a user runs it: the turn id `ask --json` printed finds that turn's spans."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.integration.data_cli import main

pytestmark = pytest.mark.integration


def _daemon(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return main(tmp_path, tmp_path / "data", *args)


def test_the_turn_id_ask_prints_finds_its_trace(tmp_path: Path) -> None:
    asked = _daemon(tmp_path, "ask", "I planted tomatoes in the garden today", "--json")
    assert asked.returncode == 0, asked.stderr
    turn_id = json.loads(asked.stdout)["turn_id"]
    shown = _daemon(tmp_path, "trace", "show", turn_id, "--json")
    assert shown.returncode == 0, shown.stderr
    trace = json.loads(shown.stdout)
    assert set(trace) == {"turn_id", "spans"} and trace["turn_id"] == turn_id
    names = {span["name"] for span in trace["spans"]}
    assert {"pipeline.analyze", "prompt.build", "model.call", "journal.commit", "turn"} <= names
    assert all(set(span) == {"name", "start", "duration_ms", "attributes"} for span in trace["spans"])
    assert list((tmp_path / "data" / "traces").iterdir()) == [tmp_path / "data" / "traces" / "traces.jsonl"]
    missing = _daemon(tmp_path, "trace", "show", "no-such-turn")
    assert missing.returncode == 2 and "no trace of turn 'no-such-turn'" in missing.stderr
