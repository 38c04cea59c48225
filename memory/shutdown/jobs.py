"""The durable job table of session-end processing: one row per (session, step), in its own SQLite file.

Why a table and not a flag per session: the steps are slow (LLM calls) and the process may die at any point
(laptop lid, `kill -9`, power). Each step's outcome is committed on its own, so a restart resumes at the
first step that did not finish instead of redoing the session or losing it. A step's status and its result
are written in one statement inside one transaction, so `done` never exists without its result.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import StorageError
from core.sqlite_db import DurableDB

PENDING, RUNNING, DONE, FAILED, SKIPPED = "pending", "running", "done", "failed", "skipped"
STATUSES = (PENDING, RUNNING, DONE, FAILED, SKIPPED)
FINISHED = (DONE, SKIPPED)
"""Terminal statuses: a step in one of these is never run again for that session."""

_MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "001_shutdown_jobs",
        """
        CREATE TABLE shutdown_jobs (
            session_id TEXT NOT NULL,
            step TEXT NOT NULL,
            position INTEGER NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'running', 'done', 'failed', 'skipped')),
            attempts INTEGER NOT NULL DEFAULT 0,
            started_at REAL,
            finished_at REAL,
            result_json TEXT NOT NULL DEFAULT '{}',
            error TEXT,
            planned_at REAL NOT NULL,
            PRIMARY KEY (session_id, step)
        );
        CREATE INDEX shutdown_jobs_open ON shutdown_jobs (status) WHERE status NOT IN ('done', 'skipped');
        """,
    ),
)

_COLUMNS = "session_id, step, position, status, attempts, started_at, finished_at, result_json, error"


@dataclass(frozen=True)
class JobRecord:
    """One step of one session as the table last recorded it."""

    session_id: str
    step: str
    position: int
    status: str
    attempts: int
    started_at: float | None
    finished_at: float | None
    result: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class JobTable:
    """Per-session, per-step status of session-end processing. Thread-safe (one connection, one lock).

    The data dir is locked to one process, so within that process a `running` row was either started by
    a caller that still holds the processor's per-session lock, or left behind by a crash.
    """

    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self._clock = clock
        self._db = DurableDB(path, _MIGRATIONS, what="session-end job table")

    def close(self) -> None:
        self._db.close()

    def plan(self, session_id: str, steps: Sequence[str]) -> None:
        """Add a `pending` row for each step the session does not have yet; existing rows keep their state.

        Positions follow `steps`, so `status` lists the steps in the order the processor runs them.
        """
        now = self._clock()
        rows = [(session_id, step, position, now) for position, step in enumerate(steps)]
        with self._db.write() as db:
            db.executemany(
                "INSERT INTO shutdown_jobs (session_id, step, position, planned_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (session_id, step) DO UPDATE SET position = excluded.position",
                rows,
            )

    def start(self, session_id: str, step: str) -> int:
        """Mark a step `running` and count the attempt (before it runs, so a crash still counts).

        Returns the attempt number, 1 for the first run.
        """
        with self._db.write() as db:
            cursor = db.execute(
                "UPDATE shutdown_jobs SET status = 'running', attempts = attempts + 1, started_at = ?, "
                "finished_at = NULL, error = NULL WHERE session_id = ? AND step = ?",
                (self._clock(), session_id, step),
            )
            _require_row(cursor, session_id, step)
            row = db.execute(
                "SELECT attempts FROM shutdown_jobs WHERE session_id = ? AND step = ?", (session_id, step)
            ).fetchone()
        return int(row[0])

    def finish(self, session_id: str, step: str, result: dict[str, Any], *, status: str = DONE) -> None:
        """Record a step's result and a terminal status (`done`, or `skipped`) in one statement.

        The result must be JSON: it is encoded before anything is written, so a bad result leaves the
        row as it was instead of half-recorded.
        """
        if status not in FINISHED:
            raise ValueError(f"finish() records a terminal status {FINISHED}, not {status!r}")
        encoded = json.dumps(result, sort_keys=True)
        with self._db.write() as db:
            cursor = db.execute(
                "UPDATE shutdown_jobs SET status = ?, result_json = ?, error = NULL, finished_at = ? "
                "WHERE session_id = ? AND step = ?",
                (status, encoded, self._clock(), session_id, step),
            )
            _require_row(cursor, session_id, step)

    def fail(self, session_id: str, step: str, error: str) -> None:
        """Record that a step failed (it stays eligible for a retry until the caller's attempt limit)."""
        with self._db.write() as db:
            cursor = db.execute(
                "UPDATE shutdown_jobs SET status = 'failed', error = ?, finished_at = ? "
                "WHERE session_id = ? AND step = ?",
                (error, self._clock(), session_id, step),
            )
            _require_row(cursor, session_id, step)

    def purge(self, session_id: str) -> None:
        """Remove a session's session-end records for good (their results quote the session)."""
        with self._db.write() as db:
            db.execute("DELETE FROM shutdown_jobs WHERE session_id = ?", (session_id,))
        self._db.compact()

    def status(self, session_id: str) -> list[JobRecord]:
        """Every step recorded for a session, in run order (empty if the session was never planned)."""
        query = f"SELECT {_COLUMNS} FROM shutdown_jobs WHERE session_id = ? ORDER BY position, step"
        rows = self._db.rows(query, (session_id,))
        return [_to_record(row) for row in rows]

    def sessions_needing_work(
        self, *, max_attempts: int | None = None, steps: Collection[str] | None = None
    ) -> list[str]:
        """Sessions with a step that is not `done`/`skipped`, oldest plan first (for resume at start-up).

        With `max_attempts`, a step that already used that many attempts no longer counts (it is left
        failed). With `steps`, only those step names count, so a step dropped from the processor does not
        keep its old sessions on this list forever.
        """
        query = "SELECT session_id, MIN(planned_at) FROM shutdown_jobs WHERE status NOT IN ('done','skipped')"
        params: list[Any] = []
        if max_attempts is not None:
            query += " AND attempts < ?"
            params.append(max_attempts)
        if steps is not None:
            names = list(steps)
            query += f" AND step IN ({', '.join('?' * len(names))})" if names else " AND 0"
            params.extend(names)
        query += " GROUP BY session_id ORDER BY MIN(planned_at), session_id"
        rows = self._db.rows(query, params)
        return [row[0] for row in rows]


def _require_row(cursor: sqlite3.Cursor, session_id: str, step: str) -> None:
    if cursor.rowcount != 1:
        raise StorageError(f"step {step!r} of session {session_id} was never planned")


def _to_record(row: tuple[Any, ...]) -> JobRecord:
    session_id, step, position, status, attempts, started_at, finished_at, result_json, error = row
    try:
        result = json.loads(result_json)
    except ValueError:
        result = {"unreadable_result": result_json[:200]}  # never crash a resume over one bad row
    return JobRecord(
        session_id=session_id,
        step=step,
        position=position,
        status=status,
        attempts=attempts,
        started_at=started_at,
        finished_at=finished_at,
        result=result if isinstance(result, dict) else {"value": result},
        error=error,
    )
