"""`import`: an unpacked, checked archive applied to a data dir.

Into an empty data dir it reproduces the exported memory: the databases become the data dir's, the records
go back with their own vectors (re-embedded when the data dir's embedding model differs), the files are
copied. Into a data dir with memory of its own it merges: rows and records the data dir lacks are added, by
their ids, so importing one archive twice adds nothing the second time. Every step is idempotent, so an
import cut short is finished by running it again.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memory.archive.databases import merge_database
from memory.archive.layout import ArchiveError, ArchiveLayout
from memory.archive.reader import UnpackedArchive
from memory.collections import COLLECTIONS, MetadataError, validate_metadata

if TYPE_CHECKING:
    from memory.service import MemoryService

Progress = Callable[[str, int, int], None]  # (what, done, total)
BATCH = 512


@dataclass
class ImportReport:
    """What an import added (rows per database, records per collection) and its files copied, merged or
    kept; what the data dir already held is not counted."""

    rows: dict[str, int] = field(default_factory=dict)
    records: dict[str, int] = field(default_factory=dict)
    files_copied: list[str] = field(default_factory=list)
    files_merged: list[str] = field(default_factory=list)
    files_kept: list[str] = field(default_factory=list)  # the data dir had its own copy, which stays
    reembedded: bool = False


def check_fits(unpacked: UnpackedArchive, layout: ArchiveLayout) -> None:
    """Refuse, before anything is written, an archive naming databases, collections or files that this
    version does not keep (a foreign or newer archive), or records its collections would refuse."""
    specs = {spec.name: spec for spec in COLLECTIONS}
    unknown = [f"database {n}" for n in unpacked.databases if n not in layout.databases]
    unknown += [f"collection {n}" for n in unpacked.collections if n not in specs]
    unknown += [f"file {n}" for n in unpacked.files if not _is_user_file(n, layout)]
    if unknown:
        raise ArchiveError(f"the archive holds what this Daemon does not keep: {', '.join(unknown[:5])}")
    for name, collection in unpacked.collections.items():
        for record in collection.records:
            try:
                validate_metadata(specs[name], record.metadata)
            except MetadataError as error:
                raise ArchiveError(f"the archive's record {record.id!r}: {error}") from None


def _is_user_file(name: str, layout: ArchiveLayout) -> bool:
    return name in layout.files or any(name.startswith(f"{folder}/") for folder in layout.folders)


def restore(
    unpacked: UnpackedArchive,
    data_dir: Path,
    layout: ArchiveLayout,
    memory: MemoryService,
    *,
    progress: Progress | None = None,
) -> ImportReport:
    """Apply `unpacked` to `data_dir` (whose lock the caller holds) and `memory` (its open store)."""
    step = progress or (lambda what, done, total: None)
    report = ImportReport()
    for done, (name, archived) in enumerate(sorted(unpacked.databases.items()), 1):
        report.rows[name] = merge_database(archived, data_dir / name)
        step("databases", done, len(unpacked.databases))
    embedder = memory.embedder
    report.reembedded = unpacked.embedding_model != (embedder.name, embedder.dim)
    for done, (name, collection) in enumerate(sorted(unpacked.collections.items()), 1):
        added = 0
        for start in range(0, len(collection.records), BATCH):
            batch = collection.records[start : start + BATCH]
            held = {r.id for r in memory.store.get(name, ids=[r.id for r in batch])}
            rows = [i for i, r in enumerate(batch) if r.id not in held]  # the data dir's own version stays
            if rows:
                vectors = None if report.reembedded else collection.vectors[start : start + BATCH][rows]
                memory.restore(name, [batch[i] for i in rows], vectors)
            added += len(rows)
        report.records[name] = added
        step("collections", done, len(unpacked.collections))
    for done, (name, archived) in enumerate(sorted(unpacked.files.items()), 1):
        _place_file(name, archived, data_dir, layout, report)
        step("files", done, len(unpacked.files))
    return report


def _place_file(
    name: str, archived: Path, data_dir: Path, layout: ArchiveLayout, report: ImportReport
) -> None:
    target = data_dir.joinpath(*name.split("/"))
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".importing")
        shutil.copyfile(archived, partial)
        os.chmod(partial, 0o600)
        os.replace(partial, target)
        report.files_copied.append(name)
    elif (merge := layout.merges.get(name)) is not None:
        if merge(archived, target):
            report.files_merged.append(name)
    elif target.read_bytes() != archived.read_bytes():
        report.files_kept.append(name)
