"""The sync ledger (`sync_ledger.sqlite3` in the data dir): what each source sync has already stored.

- `notes`: one row per vault-relative note path: its mtime and size when last read, the sha256 of its text,
  the ids of its records (JSON list), its title and, once the file is gone, when it was tombstoned.
- `git_heads`: the last ingested commit per repository and branch (incremental syncs start there).
- `git_commits`: every ingested commit per repository (sha → record id), and when it was tombstoned because
  no branch reaches it any more (an amended or rebased commit).

The ledger is written after the store (WAL, synchronous=FULL): a crash in between leaves an item the store
holds but the ledger does not, which the next sync writes again under the same ids, so nothing is stored
twice. One connection, shared by threads under a lock.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.errors import StorageError

LEDGER_FILE = "sync_ledger.sqlite3"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    path TEXT PRIMARY KEY, mtime REAL NOT NULL, size INTEGER NOT NULL, content_hash TEXT NOT NULL,
    record_ids TEXT NOT NULL, title TEXT NOT NULL, deleted_at REAL);
CREATE TABLE IF NOT EXISTS git_heads (
    repo TEXT NOT NULL, branch TEXT NOT NULL, sha TEXT NOT NULL, PRIMARY KEY (repo, branch));
CREATE TABLE IF NOT EXISTS git_commits (
    repo TEXT NOT NULL, sha TEXT NOT NULL, record_id TEXT NOT NULL, deleted_at REAL,
    PRIMARY KEY (repo, sha));
"""


@dataclass(frozen=True)
class NoteEntry:
    """The ledger's row of one note."""

    path: str
    mtime: float
    size: int
    content_hash: str
    record_ids: tuple[str, ...]
    title: str
    deleted_at: float | None


class SyncLedger:
    """The ledger file, opened (and created) at `path`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as error:
            raise StorageError(f"cannot open the sync ledger at {path}: {error}") from None

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._db.close()

    def _write(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany(sql, rows)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    # --- notes --------------------------------------------------------------------------------------------
    def notes(self) -> dict[str, NoteEntry]:
        """Every note the ledger knows, live or tombstoned, by vault-relative path."""
        with self._lock:
            rows = self._db.execute(
                "SELECT path, mtime, size, content_hash, record_ids, title, deleted_at FROM notes"
            ).fetchall()
        return {
            row[0]: NoteEntry(row[0], row[1], row[2], row[3], tuple(json.loads(row[4])), row[5], row[6])
            for row in rows
        }

    def put_notes(self, entries: Iterable[NoteEntry]) -> None:
        """Record notes as read now (each replacing its previous row), in one transaction."""
        rows = [
            (e.path, e.mtime, e.size, e.content_hash, json.dumps(list(e.record_ids)), e.title, e.deleted_at)
            for e in entries
        ]
        self._write("INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?, ?, ?)", rows)

    # --- git ----------------------------------------------------------------------------------------------
    def heads(self, repo: str) -> dict[str, str]:
        """Branch -> last ingested commit of one repository."""
        with self._lock:
            rows = self._db.execute("SELECT branch, sha FROM git_heads WHERE repo = ?", (repo,)).fetchall()
        return dict(rows)

    def set_heads(self, repo: str, heads: dict[str, str]) -> None:
        """Replace the repository's recorded branch heads (a deleted branch is forgotten)."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("DELETE FROM git_heads WHERE repo = ?", (repo,))
                self._db.executemany(
                    "INSERT INTO git_heads VALUES (?, ?, ?)", [(repo, b, s) for b, s in heads.items()]
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def commits(self, repo: str, *, live_only: bool = True) -> dict[str, str]:
        """Sha -> record id of the repository's ingested commits (tombstoned ones too unless `live_only`)."""
        sql = "SELECT sha, record_id FROM git_commits WHERE repo = ?"
        if live_only:
            sql += " AND deleted_at IS NULL"
        with self._lock:
            return dict(self._db.execute(sql, (repo,)).fetchall())

    def add_commits(self, repo: str, commits: dict[str, str]) -> None:
        """Record commits (sha -> record id) as ingested and live."""
        rows = [(repo, sha, rid) for sha, rid in commits.items()]
        self._write("INSERT OR REPLACE INTO git_commits VALUES (?, ?, ?, NULL)", rows)

    def tombstone_commits(self, repo: str, shas: Iterable[str], at: float) -> None:
        """Mark commits no branch reaches any more."""
        self._write(
            "UPDATE git_commits SET deleted_at = ? WHERE repo = ? AND sha = ?", [(at, repo, s) for s in shas]
        )
