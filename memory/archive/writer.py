"""`export`: one zip archive of everything the user owns in a data dir, with a manifest of counts and
checksums. Written to `<path>.partial` and renamed when complete, so a cut-short export leaves no archive
that looks whole."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.errors import StorageError
from memory.archive.databases import snapshot
from memory.archive.layout import (
    DATABASES,
    FILES,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    READABLE,
    README,
    ArchiveLayout,
    collection_entries,
)
from memory.archive.readable import conversations_page, facts_page
from memory.facts.store import FACTS_FILE
from memory.journal import JOURNAL_FILE
from memory.vector_store import VectorStore

Progress = Callable[[str, int, int], None]  # (what, done, total)
CHUNK = 1 << 20


@dataclass
class ExportReport:
    """What an export wrote: the archive, its size, and the counts its manifest records."""

    path: Path
    bytes: int = 0
    databases: dict[str, dict[str, int]] = field(default_factory=dict)
    collections: dict[str, int] = field(default_factory=dict)
    files: int = 0


class _Archive:
    """A zip being written, remembering each entry's checksum and size for the manifest."""

    def __init__(self, zf: zipfile.ZipFile) -> None:
        self.zip = zf
        self.entries: dict[str, dict[str, Any]] = {}

    def add_bytes(self, name: str, data: bytes) -> None:
        self.zip.writestr(name, data)
        self.entries[name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}

    def add_file(self, name: str, path: Path) -> None:
        digest, size = hashlib.sha256(), 0
        info = zipfile.ZipInfo(name, date_time=time.localtime(path.stat().st_mtime)[:6])
        info.compress_type = zipfile.ZIP_DEFLATED
        with path.open("rb") as source, self.zip.open(info, "w", force_zip64=True) as target:
            while chunk := source.read(CHUNK):
                digest.update(chunk)
                size += len(chunk)
                target.write(chunk)
        self.entries[name] = {"sha256": digest.hexdigest(), "bytes": size}


def export_data(
    data_dir: Path,
    layout: ArchiveLayout,
    store: VectorStore,
    collections: Sequence[str],
    target: Path,
    *,
    app_version: str,
    progress: Progress | None = None,
) -> ExportReport:
    """Write the archive of `data_dir` to `target` (refusing to overwrite a file there)."""
    if target.exists():
        raise StorageError(f"{target} already exists; choose a new file name")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    report = ExportReport(target)
    step = progress or (lambda what, done, total: None)
    try:
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
            archive = _Archive(zf)
            _write_databases(archive, data_dir, layout, report, step)
            _write_collections(archive, store, collections, report, step)
            _write_files(archive, data_dir, layout, report, step)
            archive.add_bytes(README, _readme(report).encode("utf-8"))
            manifest = _manifest(archive.entries, report, store, app_version)
            zf.writestr(MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False))
        os.chmod(partial, 0o600)  # the user's whole memory: as private as the data dir
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    report.bytes = target.stat().st_size
    return report


def _write_databases(
    archive: _Archive, data_dir: Path, layout: ArchiveLayout, report: ExportReport, step: Progress
) -> None:
    present = [name for name in layout.databases if (data_dir / name).exists()]
    with tempfile.TemporaryDirectory(prefix="daemon-export-") as scratch:
        for done, name in enumerate(present, 1):
            copy = Path(scratch) / name
            report.databases[name] = snapshot(data_dir / name, copy)
            archive.add_file(f"{DATABASES}/{name}", copy)
            if name == JOURNAL_FILE:
                archive.add_bytes(f"{READABLE}/conversations.md", conversations_page(copy).encode("utf-8"))
            if name == FACTS_FILE:
                archive.add_bytes(f"{READABLE}/facts.md", facts_page(copy).encode("utf-8"))
            step("databases", done, len(present))


def _write_collections(
    archive: _Archive, store: VectorStore, names: Sequence[str], report: ExportReport, step: Progress
) -> None:
    import numpy as np

    for done, name in enumerate(names, 1):
        rows = store.get_with_vectors(name)
        records_entry, vectors_entry = collection_entries(name)
        lines = (
            json.dumps({"id": r.id, "text": r.text, "metadata": r.metadata}, ensure_ascii=False)
            for r, _ in rows
        )
        archive.add_bytes(records_entry, "".join(f"{line}\n" for line in lines).encode("utf-8"))
        vectors = np.asarray([v for _, v in rows], dtype=np.float32).reshape(len(rows), store.embedder.dim)
        buffer = io.BytesIO()
        np.save(buffer, vectors, allow_pickle=False)
        archive.add_bytes(vectors_entry, buffer.getvalue())
        report.collections[name] = len(rows)
        step("collections", done, len(names))


def _user_files(data_dir: Path, layout: ArchiveLayout) -> Iterator[tuple[str, Path]]:
    for name in layout.files:
        if (data_dir / name).is_file():
            yield name, data_dir / name
    for folder in layout.folders:
        root = data_dir / folder
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.is_file() and not path.is_symlink():
                yield path.relative_to(data_dir).as_posix(), path


def _write_files(
    archive: _Archive, data_dir: Path, layout: ArchiveLayout, report: ExportReport, step: Progress
) -> None:
    files = list(_user_files(data_dir, layout))
    for done, (name, path) in enumerate(files, 1):
        archive.add_file(f"{FILES}/{name}", path)
        step("files", done, len(files))
    report.files = len(files)


def _manifest(
    entries: dict[str, dict[str, Any]], report: ExportReport, store: VectorStore, app_version: str
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "app_version": app_version,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "embedding": {"model": store.embedder.name, "dim": store.embedder.dim},
        "counts": {"databases": report.databases, "collections": report.collections, "files": report.files},
        "entries": entries,
    }


def _readme(report: ExportReport) -> str:
    turns = report.databases.get(JOURNAL_FILE, {}).get("turns", 0)
    facts = report.databases.get(FACTS_FILE, {}).get("facts", 0)
    return f"""# Your Daemon data

Everything Daemon kept for you, exported {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: {turns} turns, {facts} facts,
{sum(report.collections.values())} memory records, {report.files} files.

- `readable/conversations.md`, `readable/facts.md`: your conversations and facts, to read.
- `databases/`: Daemon's SQLite files (open them with any SQLite tool).
- `collections/`: each memory collection, one JSON record a line, with its vectors beside it (NumPy).
- `files/`: your files (uploads, the knowledge graph, your personality text).
- `manifest.json`: counts and the SHA-256 of every entry.

`python main.py import THIS-FILE` brings it back into a data folder.
"""
