"""The web tools' two small SQLite files in the data dir: a result cache with a TTL, and a daily credit
ledger that survives restarts.

Each operation opens its own short connection (WAL, a busy timeout), so several tool instances, threads
or processes over one data dir share the same counts. The cache is derived data: a damaged or unwritable
cache is logged and searched past. The ledger is not: when it cannot be read, no search is made.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import closing, contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from core.errors import StorageError

logger = logging.getLogger(__name__)

CACHE_FILE = "web_cache.sqlite3"
CREDITS_FILE = "web_credits.sqlite3"


@contextmanager
def _connect(path: Path, schema: str) -> Iterator[sqlite3.Connection]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(str(path), timeout=5.0, isolation_level=None)) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(schema)
        yield db


def cache_key(query: str, options: Mapping[str, Any]) -> str:
    """The cache key of one search: the query with case and spacing normalised, and the options."""
    normal = " ".join(query.casefold().split())
    blob = json.dumps({"q": normal, "o": dict(options)}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class SearchCache:
    """Search results by `cache_key`, fresh for `ttl_s` seconds of `clock` (time.time by default)."""

    _SCHEMA = "CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, stored_at REAL NOT NULL, data TEXT)"

    def __init__(self, path: Path, ttl_s: float, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self._ttl_s = ttl_s
        self._clock = clock

    def get(self, key: str) -> Any | None:
        """The stored value of `key` if younger than the TTL, else None (a broken cache is a miss)."""
        if self._ttl_s <= 0:
            return None
        try:
            with _connect(self.path, self._SCHEMA) as db:
                row = db.execute("SELECT stored_at, data FROM results WHERE key = ?", (key,)).fetchone()
        except sqlite3.DatabaseError as error:
            logger.info("web cache %s unreadable (%s); searching without it", self.path, error)
            return None
        if row is None or self._clock() - row[0] >= self._ttl_s:
            return None
        return json.loads(row[1])

    def put(self, key: str, value: Any) -> None:
        """Store `value` (JSON-serialisable) under `key`, and drop entries past the TTL."""
        if self._ttl_s <= 0:
            return
        now = self._clock()
        try:
            with _connect(self.path, self._SCHEMA) as db:
                db.execute("BEGIN IMMEDIATE")
                db.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?)", (key, now, json.dumps(value)))
                db.execute("DELETE FROM results WHERE stored_at <= ?", (now - self._ttl_s,))
                db.execute("COMMIT")
        except sqlite3.DatabaseError as error:
            logger.info("web cache %s unwritable (%s); result not cached", self.path, error)


class DailyCredits:
    """How many searches were spent per local day, at most `limit` a day; the day ends at local midnight.

    `take` reserves credits before the requests are sent (so concurrent sub-queries cannot overspend);
    `give_back` returns a credit whose request failed (the service charges only answered searches).
    """

    _SCHEMA = "CREATE TABLE IF NOT EXISTS spent (day TEXT PRIMARY KEY, used INTEGER NOT NULL)"

    def __init__(self, path: Path, limit: int, today: Callable[[], date] = date.today) -> None:
        self.path = path
        self.limit = limit
        self._today = today

    def used(self) -> int:
        """Credits spent today."""
        with self._ledger() as db:
            row = db.execute("SELECT used FROM spent WHERE day = ?", (self._day(),)).fetchone()
        return int(row[0]) if row else 0

    def take(self, wanted: int) -> int:
        """Reserve up to `wanted` credits of today's remainder; returns how many were granted (maybe 0)."""
        day = self._day()
        with self._ledger() as db:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT used FROM spent WHERE day = ?", (day,)).fetchone()
            used = int(row[0]) if row else 0
            granted = max(0, min(wanted, self.limit - used))
            if granted:
                db.execute("INSERT OR REPLACE INTO spent VALUES (?, ?)", (day, used + granted))
            db.execute("COMMIT")
        return granted

    def give_back(self, count: int) -> None:
        """Return `count` reserved credits to today's remainder."""
        if count <= 0:
            return
        with self._ledger() as db:
            db.execute("UPDATE spent SET used = MAX(0, used - ?) WHERE day = ?", (count, self._day()))

    def _day(self) -> str:
        return self._today().isoformat()

    @contextmanager
    def _ledger(self) -> Iterator[sqlite3.Connection]:
        try:
            with _connect(self.path, self._SCHEMA) as db:
                yield db
        except sqlite3.DatabaseError as error:
            raise StorageError(f"cannot use the web search credit ledger at {self.path}: {error}") from None
