"""Prompt snapshots replay to the same prompt (hash-checked) from the file alone; a changed snapshot or a
foreign file is refused; the persistence guard fails a run that writes to the data dir."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.ports import FactView, RecalledMemory
from core.prompt.assembly import AssembledPrompt
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import TurnContext
from eval.persistence_guard import PersistenceViolation, unchanged
from eval.snapshots import SnapshotError, capture, load, prompt_hash, replay, save


async def built() -> AssembledPrompt:
    memory = RecalledMemory(
        "conv_1", "conversations", "User: My tortoise is Sir Reginald.", 0.8, 1_700_000_000.0
    )
    fact = FactView("f1", "user", "is_a", "pharmacist", "current", 0.9, "identity")
    context = TurnContext(
        "What's the tortoise's name?", memories=(memory,), profile=(fact,), now=1_700_000_100.0
    )
    return await PromptBuilder("SYSTEM", EstimateCounter(), 4000).build(context)


async def test_a_saved_snapshot_replays_to_the_same_prompt(tmp_path: Path) -> None:
    prompt = await built()
    snapshot = capture(prompt, query="What's the tortoise's name?", config_text="cfg", model="m")
    save(snapshot, tmp_path / "s.json")
    again = replay(load(tmp_path / "s.json"))
    assert prompt_hash(again) == snapshot.provenance.prompt_hash == prompt_hash(prompt)
    assert again.messages() == prompt.messages()
    assert again.as_dict(explain=True) == prompt.as_dict(explain=True)
    provenance = load(tmp_path / "s.json").provenance
    assert provenance.model == "m" and provenance.code_hash and provenance.config_hash != ""


async def test_a_changed_snapshot_or_a_foreign_file_is_refused(tmp_path: Path) -> None:
    save(capture(await built(), query="q", config_text="c", model="m"), tmp_path / "s.json")
    raw = json.loads((tmp_path / "s.json").read_text())
    raw["sections"][0]["items"][0]["text"] += " (edited)"
    (tmp_path / "edited.json").write_text(json.dumps(raw))
    with pytest.raises(SnapshotError, match="no longer reproduces"):
        replay(load(tmp_path / "edited.json"))
    (tmp_path / "other.json").write_text('{"hello": 1}')
    with pytest.raises(SnapshotError, match="not a prompt snapshot"):
        load(tmp_path / "other.json")
    with pytest.raises(SnapshotError, match="cannot read"):
        load(tmp_path / "missing.json")


def test_the_persistence_guard_fails_a_run_that_writes(tmp_path: Path) -> None:
    (tmp_path / "journal.sqlite3").write_bytes(b"turns")
    with unchanged(tmp_path):
        (tmp_path / "journal.sqlite3").read_bytes()  # reading is fine
    with pytest.raises(PersistenceViolation, match="journal.sqlite3"), unchanged(tmp_path):
        (tmp_path / "journal.sqlite3").write_bytes(b"turns, and one more")
    with pytest.raises(PersistenceViolation, match="new.txt"), unchanged(tmp_path):
        (tmp_path / "new.txt").write_text("x")
