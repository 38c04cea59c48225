"""The sync ledger: what each source sync has already stored, in the job ledger's own database.

The tables live in `jobs.sqlite3` beside the jobs and their items (knowledge/jobs.py), so a note's or a
commit's row is written in the very transaction that marks its job item done (`ItemOutcome.ledger_writes`):
there is one record of "done", and a crash can never leave the job and the incremental state disagreeing.

- `notes`: one row per vault-relative note path: its mtime and size when last read, the sha256 of its text,
  the ids of its records (JSON list), its title and, once the file is gone, when it was tombstoned.
- `git_heads`: the last ingested commit per repository and branch (incremental syncs start there).
- `git_commits`: every ingested commit per repository (sha → record id), and when it was tombstoned because
  no branch reaches it any more (an amended or rebased commit).

The rows are written after the store: a crash in between leaves an item the store holds but the ledger
does not, which the resumed job writes again under the same ids, so nothing is stored twice. A ledger of
an older version (its own `sync_ledger.sqlite3`) is imported once and renamed `*.imported`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.errors import StorageError
from knowledge.jobs import JobLedger, Statement

LEDGER_FILE = "sync_ledger.sqlite3"  # the older, separate ledger: imported into jobs.sqlite3 when found
_TABLES = ("notes", "git_heads", "git_commits")
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
    """The sync tables over a job ledger (`jobs`), or over a job ledger it opens at a path and owns."""

    def __init__(self, jobs: JobLedger | Path, *, legacy: Path | None = None) -> None:
        self._owned = not isinstance(jobs, JobLedger)
        try:
            if isinstance(jobs, JobLedger):
                self.jobs = jobs
            else:
                jobs.parent.mkdir(parents=True, exist_ok=True)
                self.jobs = JobLedger(jobs)
            self.jobs.add_tables(_SCHEMA)
        except sqlite3.DatabaseError as error:
            raise StorageError(f"cannot open the sync ledger: {error}") from None
        if legacy is not None and legacy.is_file():
            self._import(legacy)

    def close(self) -> None:
        """Close the database when this ledger opened it."""
        if self._owned:
            self.jobs.close()

    def _import(self, legacy: Path) -> None:
        """Copy an older separate ledger's rows in (rows already here win), then rename its file."""
        try:
            with sqlite3.connect(f"file:{legacy}?mode=ro", uri=True) as old:
                found = {r[0] for r in old.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                rows = {t: old.execute(f"SELECT * FROM {t}").fetchall() for t in _TABLES if t in found}  # noqa: S608
            old.close()
        except sqlite3.DatabaseError as error:
            raise StorageError(f"cannot read the older sync ledger {legacy}: {error}") from None
        widths = {"notes": 7, "git_heads": 3, "git_commits": 4}
        self.jobs.write(
            [
                (f"INSERT OR IGNORE INTO {t} VALUES ({', '.join('?' * widths[t])})", row)  # noqa: S608
                for t in rows
                for row in rows[t]
            ]
        )
        legacy.rename(legacy.with_name(legacy.name + ".imported"))

    # --- notes --------------------------------------------------------------------------------------------
    def notes(self) -> dict[str, NoteEntry]:
        """Every note the ledger knows, live or tombstoned, by vault-relative path."""
        rows = self.jobs.read(
            "SELECT path, mtime, size, content_hash, record_ids, title, deleted_at FROM notes"
        )
        return {
            row[0]: NoteEntry(row[0], row[1], row[2], row[3], tuple(json.loads(row[4])), row[5], row[6])
            for row in rows
        }

    def note(self, path: str) -> NoteEntry | None:
        """One note's row, None when the ledger never saw it."""
        rows = self.jobs.read(
            "SELECT path, mtime, size, content_hash, record_ids, title, deleted_at FROM notes WHERE path = ?",
            (path,),
        )
        return next(
            (NoteEntry(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), r[5], r[6]) for r in rows), None
        )

    @staticmethod
    def note_rows(entries: Iterable[NoteEntry]) -> list[Statement]:
        """The statements recording notes as read now (each replacing its previous row)."""
        return [
            (
                "INSERT OR REPLACE INTO notes VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    e.path,
                    e.mtime,
                    e.size,
                    e.content_hash,
                    json.dumps(list(e.record_ids)),
                    e.title,
                    e.deleted_at,
                ),
            )
            for e in entries
        ]

    def put_notes(self, entries: Iterable[NoteEntry]) -> None:
        """Record notes as read now, in one transaction."""
        self.jobs.write(self.note_rows(entries))

    # --- git ----------------------------------------------------------------------------------------------
    def heads(self, repo: str) -> dict[str, str]:
        """Branch -> last ingested commit of one repository."""
        return dict(self.jobs.read("SELECT branch, sha FROM git_heads WHERE repo = ?", (repo,)))

    @staticmethod
    def heads_rows(repo: str, heads: dict[str, str]) -> list[Statement]:
        """The statements replacing the repository's recorded branch heads (a deleted branch is forgotten)."""
        return [
            ("DELETE FROM git_heads WHERE repo = ?", (repo,)),
            *(("INSERT INTO git_heads VALUES (?, ?, ?)", (repo, b, s)) for b, s in heads.items()),
        ]

    def set_heads(self, repo: str, heads: dict[str, str]) -> None:
        """Replace the repository's recorded branch heads."""
        self.jobs.write(self.heads_rows(repo, heads))

    def commits(self, repo: str, *, live_only: bool = True) -> dict[str, str]:
        """Sha -> record id of the repository's ingested commits (tombstoned ones too unless `live_only`)."""
        sql = "SELECT sha, record_id FROM git_commits WHERE repo = ?"
        if live_only:
            sql += " AND deleted_at IS NULL"
        return dict(self.jobs.read(sql, (repo,)))

    @staticmethod
    def commit_rows(repo: str, commits: dict[str, str]) -> list[Statement]:
        """The statements recording commits (sha -> record id) as ingested and live."""
        return [
            ("INSERT OR REPLACE INTO git_commits VALUES (?, ?, ?, NULL)", (repo, sha, rid))
            for sha, rid in commits.items()
        ]

    def add_commits(self, repo: str, commits: dict[str, str]) -> None:
        """Record commits as ingested and live."""
        self.jobs.write(self.commit_rows(repo, commits))

    @staticmethod
    def tombstone_rows(repo: str, shas: Iterable[str], at: float) -> list[Statement]:
        """The statements marking commits no branch reaches any more."""
        return [
            ("UPDATE git_commits SET deleted_at = ? WHERE repo = ? AND sha = ?", (at, repo, s)) for s in shas
        ]
