"""A restore asked for in the GUI happens at the next start, before anything opens the folder."""

from __future__ import annotations

import sqlite3
from contextlib import nullcontext
from pathlib import Path

from tests.unit.memory.archive_helpers import LAYOUT, VERSION, exported, memory
from ui.shared.restore_snapshot import RESTORE_ON_START, ask_restore_on_start, restore_pending


def _notes(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as db:
        return list(db.execute("SELECT id, body FROM notes ORDER BY id"))


def test_the_next_start_restores_the_snapshot_and_keeps_the_folder_aside(tmp_path: Path) -> None:
    archive = exported(tmp_path)  # of tmp_path/data, which then changes
    data = tmp_path / "data"
    with sqlite3.connect(data / "notes.sqlite3") as db:
        db.execute("INSERT INTO notes VALUES ('n3', 'written after the snapshot')")
    ask_restore_on_start(data, archive)
    said = restore_pending(data, LAYOUT, lambda: nullcontext(memory()), app_version=VERSION)
    assert said is not None and said.startswith(f"Restored the snapshot {archive.name}")
    assert _notes(data / "notes.sqlite3") == [("n1", "first"), ("n2", "second")]
    assert not (data / RESTORE_ON_START).exists()  # done once
    [aside] = [p for p in tmp_path.iterdir() if p.name.startswith("data-before-restore-")]
    assert ("n3", "written after the snapshot") in _notes(aside / "notes.sqlite3")
    assert restore_pending(data, LAYOUT, lambda: nullcontext(memory()), app_version=VERSION) is None


def test_a_restore_that_cannot_happen_leaves_the_folder_and_is_not_tried_again(tmp_path: Path) -> None:
    exported(tmp_path)
    data = tmp_path / "data"
    before = _notes(data / "notes.sqlite3")
    ask_restore_on_start(data, tmp_path / "gone.zip")
    said = restore_pending(data, LAYOUT, lambda: nullcontext(memory()), app_version=VERSION)
    assert said is not None and "did not happen" in said and "no archive at" in said
    assert _notes(data / "notes.sqlite3") == before and (data / "restore-on-start.failed.json").exists()
    assert restore_pending(data, LAYOUT, lambda: nullcontext(memory()), app_version=VERSION) is None
