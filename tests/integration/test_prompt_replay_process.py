"""`python main.py prompt --replay FILE` in a real process: it prints the saved prompt from the file alone,
refuses an edited one with exit 2 and one line, and leaves the data dir's contents as they were (the process
opens its log there, as every command does)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.ports import RecalledMemory
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import TurnContext
from eval.persistence_guard import fingerprint
from eval.snapshots import capture, save

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration


def replay(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DAEMON_DATA_DIR": str(data)}
    command = [sys.executable, str(ROOT / "main.py"), "prompt", "--replay", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


async def test_replay_prints_the_saved_prompt_and_its_variants_refuses_an_edited_one_and_writes_nothing(
    tmp_path: Path,
) -> None:
    memory = RecalledMemory("conv_1", "conversations", "User: Our tortoise is Sir Reginald.", 0.8, 1.7e9)
    context = TurnContext("What's the tortoise's name?", memories=(memory,), now=1.7e9 + 60)
    prompt = await PromptBuilder("SYSTEM", EstimateCounter(), 4000).build(context)
    snapshot = tmp_path / "snapshot.json"
    save(capture(prompt, query=context.text, config_text="cfg", model="local"), snapshot)
    data = tmp_path / "data"
    data.mkdir()
    (data / "journal.sqlite3").write_bytes(b"the user's turns")
    before = fingerprint(data)

    shown = replay(data, str(snapshot), "--json")
    assert shown.returncode == 0, shown.stderr
    items = [item["text"] for section in json.loads(shown.stdout)["sections"] for item in section["items"]]
    assert any("Sir Reginald" in text for text in items)

    listed = replay(data, str(snapshot), "--variants", "--json")
    assert listed.returncode == 0, listed.stderr
    names = [row["name"] for row in json.loads(listed.stdout)["variants"]]
    assert names[0] == "full" and "without:relevant_memories" in names and "base" in names
    without = replay(data, str(snapshot), "--variant", "without:relevant_memories")
    assert without.returncode == 0 and "Sir Reginald" not in without.stdout and "tortoise" in without.stdout
    unknown = replay(data, str(snapshot), "--variant", "without:everything")
    assert unknown.returncode == 2 and "it has: full" in unknown.stderr

    raw = json.loads(snapshot.read_text())
    raw["system"] = "ANOTHER SYSTEM PROMPT"
    snapshot.write_text(json.dumps(raw))
    refused = replay(data, str(snapshot))
    assert refused.returncode == 2 and "no longer reproduces" in refused.stderr
    assert "Traceback" not in refused.stderr
    after = fingerprint(data)
    after.pop("daemon.log", None)  # every command logs to the data dir it runs on; the replay wrote nothing
    assert after == before
