"""An export read back: into an empty data dir it is the same memory; into one with memory it merges."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

import numpy as np

from memory.archive.reader import unpack
from memory.archive.restore import restore
from tests.unit.memory.archive_helpers import FACT, LAYOUT, VERSION, exported, filled_memory, memory


def _notes(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as db:
        return list(db.execute("SELECT id, body FROM notes ORDER BY id"))


def test_an_archive_restored_into_an_empty_data_dir_is_the_same_memory(tmp_path: Path) -> None:
    source = filled_memory()
    archive = exported(tmp_path, source)
    target, service = tmp_path / "fresh", memory()
    target.mkdir()
    report = restore(unpack(archive, tmp_path / "unpacked", app_version=VERSION), target, LAYOUT, service)
    assert _notes(target / "notes.sqlite3") == _notes(tmp_path / "data" / "notes.sqlite3")
    assert (target / "uploads" / "images" / "cat.png").read_bytes() == b"\x89PNG not really"
    assert (target / "personality.md").read_text() == "Be brief.\n"
    assert not (target / "secrets.json").exists()  # keys never leave in an archive
    assert report.records == {"conversations": 1, "facts": 1} and not report.reembedded
    for name in ("conversations", "facts"):
        ours = {r.id: (r, v) for r, v in source.store.get_with_vectors(name)}
        theirs = {r.id: (r, v) for r, v in service.store.get_with_vectors(name)}
        assert ours.keys() == theirs.keys()
        for key, (record, vector) in ours.items():
            assert theirs[key][0] == record and np.array_equal(theirs[key][1], vector)
    assert service.indexed_count("conversations") == 1  # searchable by words too, not only by vector


def test_importing_the_same_archive_twice_adds_nothing_the_second_time(tmp_path: Path) -> None:
    archive = exported(tmp_path)
    target, service = tmp_path / "fresh", memory()
    target.mkdir()
    restore(unpack(archive, tmp_path / "one", app_version=VERSION), target, LAYOUT, service)
    again = restore(unpack(archive, tmp_path / "two", app_version=VERSION), target, LAYOUT, service)
    assert again.rows == {"notes.sqlite3": 0} and again.records == {"conversations": 0, "facts": 0}
    assert again.files_copied == [] and again.files_kept == []
    assert service.store.counts()["conversations"] == 1


def test_a_merge_keeps_the_data_dirs_own_rows_and_files_and_adds_the_rest(tmp_path: Path) -> None:
    archive = exported(tmp_path)
    target = tmp_path / "mine"
    target.mkdir()
    with sqlite3.connect(target / "notes.sqlite3") as db:
        db.execute("CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)")
        db.executemany("INSERT INTO notes VALUES (?, ?)", [("n1", "mine, edited"), ("n9", "only mine")])
    (target / "personality.md").write_text("Be thorough.\n")
    report = restore(unpack(archive, tmp_path / "unpacked", app_version=VERSION), target, LAYOUT, memory())
    assert _notes(target / "notes.sqlite3") == [("n1", "mine, edited"), ("n2", "second"), ("n9", "only mine")]
    assert report.rows == {"notes.sqlite3": 1}
    assert (target / "personality.md").read_text() == "Be thorough.\n"
    assert report.files_kept == ["personality.md"]


def test_records_are_embedded_again_when_the_data_dir_uses_another_model(tmp_path: Path) -> None:
    archive = exported(tmp_path)
    target, service = tmp_path / "fresh", memory(dim=32)  # another embedding model: other vectors
    target.mkdir()
    report = restore(unpack(archive, tmp_path / "unpacked", app_version=VERSION), target, LAYOUT, service)
    assert report.reembedded
    [(record, vector)] = service.store.get_with_vectors("facts")
    assert record.text == "Jo lives in Denver" and vector.shape == (32,)


def test_the_archive_is_readable_and_its_manifest_counts_it(tmp_path: Path) -> None:
    with zipfile.ZipFile(exported(tmp_path)) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        facts = [json.loads(line) for line in zf.read("collections/facts.jsonl").decode().splitlines()]
        names = set(zf.namelist())
    assert manifest["counts"]["collections"] == {"conversations": 1, "facts": 1}
    assert manifest["counts"]["databases"] == {"notes.sqlite3": {"notes": 2}}
    assert facts == [{"id": "fact_1", "text": "Jo lives in Denver", "metadata": FACT}]
    assert set(manifest["entries"]) == names - {"manifest.json"}
    assert {"files/uploads/recipe.md", "files/personality.md", "README.md"} <= names
    assert not any("secrets" in name for name in names)
