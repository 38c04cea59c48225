"""A small data dir and memory store to export, and a way to write altered copies of an archive."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from memory.archive.layout import MANIFEST, ArchiveLayout
from memory.archive.writer import export_data
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.service import MemoryService
from memory.vector_store import Metadata, Record
from tests.unit.memory.profile_helpers import committed_profiles

VERSION = "0.1.0"
COLLECTIONS = ("conversations", "facts")
FACT: Metadata = {"subject": "Jo", "predicate": "lives_in", "object": "Denver", "created_at": 1_700_000_000.0}
LAYOUT = ArchiveLayout(
    databases=("notes.sqlite3", "journal.sqlite3"), files=("personality.md",), folders=("uploads",)
)


def memory(dim: int = 64) -> MemoryService:
    service = MemoryService(InMemoryStore(HashingEmbedder(dim)), committed_profiles())
    service.open()
    return service


def filled_memory() -> MemoryService:
    service = memory()
    meta: Metadata = {"session_id": "s1", "turn_id": "t1", "created_at": 1_700_000_000.0, "seq": 1}
    service.write_turns([Record("conv_1", "User: my sister Jo lives in Denver", meta)])
    service.add("facts", [Record("fact_1", "Jo lives in Denver", FACT)])
    return service


def data_dir(root: Path, notes: Sequence[tuple[str, str]] = (("n1", "first"), ("n2", "second"))) -> Path:
    data = root / "data"
    (data / "uploads" / "images").mkdir(parents=True)
    with sqlite3.connect(data / "notes.sqlite3") as db:
        db.execute("CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)")
        db.executemany("INSERT INTO notes VALUES (?, ?)", notes)
    (data / "personality.md").write_text("Be brief.\n")
    (data / "uploads" / "recipe.md").write_text("225 g self-raising flour\n")
    (data / "uploads" / "images" / "cat.png").write_bytes(b"\x89PNG not really")
    (data / "secrets.json").write_text('{"key": "sk-never-exported"}')
    return data


def exported(root: Path, service: MemoryService | None = None) -> Path:
    """An archive of `data_dir(root)` and `filled_memory()` (or `service`)."""
    target = root / "export.zip"
    store = (service or filled_memory()).store
    export_data(data_dir(root), LAYOUT, store, COLLECTIONS, target, app_version=VERSION)
    return target


def rewritten(
    archive: Path,
    target: Path,
    *,
    drop: Sequence[str] = (),
    replace: Mapping[str, bytes] = {},
    add: Mapping[str, bytes] = {},
    manifest: Mapping[str, object] | None = None,
    listed: bool = True,
) -> Path:
    """A copy of `archive` with entries dropped, replaced or added, and its manifest changed. `listed`: added
    entries are listed in the manifest with their true size (as a forger would), so the later checks run."""
    import hashlib

    with zipfile.ZipFile(archive) as source:
        entries = {info.filename: source.read(info) for info in source.infolist()}
    meta = json.loads(entries.pop(MANIFEST))
    for name in drop:
        entries.pop(name)
    entries.update(replace)
    entries.update(add)
    if listed:
        for name, data in add.items():
            meta["entries"][name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    meta.update(manifest or {})
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data in entries.items():
            out.writestr(name, data)
        out.writestr(MANIFEST, json.dumps(meta))
    return target
