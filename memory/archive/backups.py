"""Local snapshots of a data dir: each one an export archive (`writer`), checked by reading it back whole
(`reader`) before it counts, the newest `keep` kept.

A snapshot is consistent where it matters: every SQLite file is copied through SQLite's backup API, every
collection read through the store, so one can be taken while Daemon runs. Its name sorts by time
(`daemon-20261207-041500.zip`).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from core.errors import UserInputError
from memory.archive.layout import ArchiveLayout
from memory.archive.reader import unpack
from memory.archive.writer import export_data
from memory.vector_store import VectorStore

PREFIX, SUFFIX = "daemon-", ".zip"


@dataclass(frozen=True)
class Snapshot:
    """One snapshot on disk."""

    path: Path
    bytes: int
    taken_at: float

    @property
    def name(self) -> str:
        return self.path.name


class Backups:
    """The snapshots in one folder (created private when the first one is taken)."""

    def __init__(self, folder: Path, keep: int) -> None:
        self.folder = folder
        self.keep = keep

    def take(
        self,
        data_dir: Path,
        layout: ArchiveLayout,
        store: VectorStore,
        collections: Sequence[str],
        *,
        app_version: str,
        now: float | None = None,
    ) -> tuple[Snapshot, list[str]]:
        """A new snapshot, verified; then the oldest beyond `keep` removed. The snapshot and the names
        removed. A snapshot that does not read back whole is removed and the error raised."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
        path = self.folder / f"{PREFIX}{stamp}{SUFFIX}"
        export_data(data_dir, layout, store, collections, path, app_version=app_version)
        try:
            verify(path, app_version)
        except Exception:
            path.unlink(missing_ok=True)
            raise
        return self._snapshot(path), self._prune()

    def snapshots(self) -> list[Snapshot]:
        """The snapshots, newest first."""
        if not self.folder.is_dir():
            return []
        found = [p for p in self.folder.glob(f"{PREFIX}*{SUFFIX}") if p.is_file()]
        return sorted((self._snapshot(p) for p in found), key=lambda s: s.name, reverse=True)

    def find(self, name: str) -> Snapshot:
        """A snapshot by its name (or a path to any archive)."""
        given = Path(name)
        if given.is_file():
            return self._snapshot(given)
        for snapshot in self.snapshots():
            if snapshot.name in (name, f"{name}{SUFFIX}"):
                return snapshot
        raise UserInputError(f"no snapshot {name!r} in {self.folder}; `backup list` shows them")

    def _prune(self) -> list[str]:
        removed = []
        for snapshot in self.snapshots()[self.keep :]:
            snapshot.path.unlink(missing_ok=True)
            removed.append(snapshot.name)
        return removed

    @staticmethod
    def _snapshot(path: Path) -> Snapshot:
        status = path.stat()
        return Snapshot(path, status.st_size, status.st_mtime)


def verify(path: Path, app_version: str) -> None:
    """Read an archive back whole (checksums, databases, records): raises `ArchiveError` if it is not."""
    with tempfile.TemporaryDirectory(prefix="daemon-verify-") as scratch:
        unpack(path, Path(scratch), app_version=app_version)
