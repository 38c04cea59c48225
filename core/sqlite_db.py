"""A durable SQLite database for one component: WAL, synchronous=FULL, named migrations, one lock.

Every write goes through `write()` (BEGIN IMMEDIATE … COMMIT, rolled back on error, under the lock), so a
`kill -9` leaves each change either fully applied or not at all. Reads share the lock: one connection is
used from several threads (front ends and worker threads), which sqlite3 allows with check_same_thread off.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from core.errors import StorageError

Migration = tuple[str, str]  # (unique name, SQL statements separated by ";")


class DurableDB:
    """One SQLite file with its migrations applied."""

    def __init__(
        self, path: Path, migrations: Sequence[Migration], *, what: str, read_only: bool = False
    ) -> None:
        """Open (creating and migrating) the file; `read_only` opens an existing, migrated file for reading
        only, so a reader can share it with the process that owns the data dir (WAL allows that)."""
        self.path = path
        self._what = what
        self._lock = threading.RLock()
        try:
            if read_only:
                uri = f"{path.resolve().as_uri()}?mode=ro"
                self._db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
                self._db.execute("PRAGMA busy_timeout=5000")
                self._require_migrated(migrations)
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._migrate(migrations)
        except sqlite3.DatabaseError as error:
            raise StorageError(f"cannot open the {what} at {path}: {error}") from None

    def _require_migrated(self, migrations: Sequence[Migration]) -> None:
        done = {row[0] for row in self._db.execute("SELECT name FROM migrations")}
        missing = [name for name, _ in migrations if name not in done]
        if missing:
            self._db.close()
            raise StorageError(
                f"the {self._what} at {self.path} needs an upgrade ({', '.join(missing)}); "
                "open it once with no other Daemon instance running"
            )

    def _migrate(self, migrations: Sequence[Migration]) -> None:
        self._db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at REAL)")
        done = {row[0] for row in self._db.execute("SELECT name FROM migrations")}
        for name, sql in migrations:
            if name in done:
                continue
            with self.write() as db:
                for statement in filter(str.strip, sql.split(";")):
                    db.execute(statement)
                db.execute("INSERT INTO migrations VALUES (?, ?)", (name, time.time()))

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: everything inside commits together or not at all. SQLite's own errors
        (disk full, a damaged file) become a `StorageError` that names the database."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as error:
                raise StorageError(f"cannot write the {self._what} at {self.path}: {error}") from None
            try:
                yield self._db
            except BaseException as error:
                self._db.execute("ROLLBACK")
                if isinstance(error, sqlite3.DatabaseError):
                    raise StorageError(f"cannot write the {self._what} at {self.path}: {error}") from None
                raise
            self._db.execute("COMMIT")

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query; a damaged file is a `StorageError` naming the database, like a write."""
        with self._lock:
            try:
                return list(self._db.execute(sql, params))
            except sqlite3.DatabaseError as error:
                raise StorageError(self._unreadable(error)) from None

    def compact(self) -> None:
        """Rewrite the file without free pages and empty the WAL: after an explicit purge, so the bytes of
        deleted rows are gone from disk, not only unreachable (SQLite keeps them in free pages)."""
        with self._lock:
            try:
                self._db.execute("VACUUM")
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.DatabaseError as error:
                raise StorageError(f"cannot compact the {self._what} at {self.path}: {error}") from None

    def pragma(self, name: str) -> Any:
        """One PRAGMA's value (tests check the durability settings through this)."""
        with self._lock:
            try:
                return self._db.execute(f"PRAGMA {name}").fetchone()[0]
            except sqlite3.DatabaseError as error:
                raise StorageError(self._unreadable(error)) from None

    def _unreadable(self, error: sqlite3.DatabaseError) -> str:
        return f"cannot read the {self._what} at {self.path}: {error}"

    def close(self) -> None:
        with self._lock:
            self._db.close()
