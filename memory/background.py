"""Background tasks' ledger: `background.sqlite3` in the data dir (WAL, synchronous=FULL).

A task is a piece of long work handed to a subagent (research over memory and the web, say) with a budget.
Its row goes queued -> running -> done | cancelled | failed; progress (rounds, tool calls, tokens, the last
step) is written as it runs, so any front end, or `task list` from a shell, can show it. Nothing is lost on
a crash: at the next start `recover()` finds the tasks still marked running (their process died) and queues
them again to be resumed from the start (a subagent's work is read-only: doing it again is safe), or fails
one that was cut off `max_attempts` times already, with that reason. A cancel asked from another process
is a flag the running process reads between steps.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from core.errors import UserInputError
from core.sqlite_db import DurableDB, Migration

BACKGROUND_FILE = "background.sqlite3"
TaskState = Literal["queued", "running", "done", "cancelled", "failed"]
FINISHED: frozenset[str] = frozenset({"done", "cancelled", "failed"})
BACKGROUND_MIGRATIONS: tuple[Migration, ...] = (
    (
        "background_001",
        """
        CREATE TABLE background_tasks (
            id TEXT PRIMARY KEY, title TEXT NOT NULL, prompt TEXT NOT NULL, agent TEXT NOT NULL,
            origin TEXT NOT NULL, state TEXT NOT NULL, created_at REAL NOT NULL, started_at REAL,
            ended_at REAL, attempts INTEGER NOT NULL DEFAULT 0, cancel INTEGER NOT NULL DEFAULT 0,
            progress TEXT NOT NULL DEFAULT '{}', result TEXT, error TEXT, trace_id TEXT, note TEXT
        );
        CREATE INDEX background_by_state ON background_tasks (state, created_at)
        """,
    ),
)
_COLUMNS = (
    "id, title, prompt, agent, origin, state, created_at, started_at, ended_at, attempts, cancel, progress, "
    "result, error, trace_id, note"
)
_MAX_PROMPT = 8000


@dataclass(frozen=True)
class BackgroundTask:
    """One task's row."""

    id: str
    title: str
    prompt: str
    agent: str
    origin: str
    state: TaskState
    created_at: float
    started_at: float | None = None
    ended_at: float | None = None
    attempts: int = 0
    cancel_requested: bool = False
    progress: Mapping[str, Any] = field(default_factory=dict)
    result: str | None = None
    error: str | None = None
    trace_id: str | None = None
    note: str | None = None  # "resumed after a restart", …

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "agent": self.agent,
            "state": self.state,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "attempts": self.attempts,
            "progress": dict(self.progress),
            "result": self.result,
            "error": self.error,
            "trace_id": self.trace_id,
            "note": self.note,
        }


class BackgroundLedger:
    """The background tasks' rows, shared by the processes on the data dir."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._db = DurableDB(path, BACKGROUND_MIGRATIONS, what="background task ledger")
        self._clock = clock

    def create(self, prompt: str, agent: str, *, origin: str, title: str = "") -> BackgroundTask:
        prompt = prompt.strip()
        if not prompt:
            raise UserInputError("a background task needs something to do")
        if len(prompt) > _MAX_PROMPT:
            raise UserInputError(f"a background task's text is at most {_MAX_PROMPT} characters")
        task_id = "bg_" + uuid.uuid4().hex[:10]
        title = title.strip() or " ".join(prompt.split())[:80]
        with self._db.write() as db:
            db.execute(
                "INSERT INTO background_tasks (id, title, prompt, agent, origin, state, created_at) "
                "VALUES (?, ?, ?, ?, ?, 'queued', ?)",
                (task_id, title, prompt, agent, origin, self._clock()),
            )
        return self.get(task_id)

    def get(self, task_id: str) -> BackgroundTask:
        rows = self._db.rows(f"SELECT {_COLUMNS} FROM background_tasks WHERE id = ?", (task_id.strip(),))
        if not rows:
            raise UserInputError(f"no background task {task_id!r}; `task list` shows their ids")
        return _task(rows[0])

    def tasks(self, limit: int = 50) -> list[BackgroundTask]:
        """Newest first."""
        rows = self._db.rows(
            f"SELECT {_COLUMNS} FROM background_tasks ORDER BY created_at DESC LIMIT ?", (limit,)
        )
        return [_task(row) for row in rows]

    def queued(self) -> list[BackgroundTask]:
        rows = self._db.rows(
            f"SELECT {_COLUMNS} FROM background_tasks WHERE state = 'queued' ORDER BY created_at"
        )
        return [_task(row) for row in rows]

    def start(self, task_id: str) -> bool:
        """Queued -> running (one more attempt); False when it is no longer queued (cancelled meanwhile)."""
        with self._db.write() as db:
            changed = db.execute(
                "UPDATE background_tasks SET state = 'running', started_at = ?, attempts = attempts + 1 "
                "WHERE id = ? AND state = 'queued'",
                (self._clock(), task_id),
            ).rowcount
        return changed == 1

    def report(self, task_id: str, progress: Mapping[str, Any]) -> None:
        with self._db.write() as db:
            db.execute(
                "UPDATE background_tasks SET progress = ? WHERE id = ? AND state = 'running'",
                (json.dumps(dict(progress)), task_id),
            )

    def finish(
        self,
        task_id: str,
        state: TaskState,
        *,
        result: str | None = None,
        error: str | None = None,
        trace_id: str | None = None,
    ) -> BackgroundTask:
        with self._db.write() as db:
            db.execute(
                "UPDATE background_tasks SET state = ?, ended_at = ?, result = ?, error = ?, trace_id = ? "
                "WHERE id = ?",
                (state, self._clock(), result, error, trace_id, task_id),
            )
        return self.get(task_id)

    def requeue(self, task_id: str, note: str) -> None:
        """A running task back to the queue (Daemon closing): this interruption does not count as an
        attempt."""
        with self._db.write() as db:
            db.execute(
                "UPDATE background_tasks SET state = 'queued', note = ?, attempts = MAX(0, attempts - 1) "
                "WHERE id = ? AND state = 'running'",
                (note, task_id),
            )

    def request_cancel(self, task_id: str) -> BackgroundTask:
        """Ask a task to stop: a queued one is cancelled at once, a running one at its next step."""
        task = self.get(task_id)
        if task.state in FINISHED:
            raise UserInputError(f"background task {task.id} has already ended ({task.state})")
        with self._db.write() as db:
            db.execute("UPDATE background_tasks SET cancel = 1 WHERE id = ?", (task.id,))
            db.execute(
                "UPDATE background_tasks SET state = 'cancelled', ended_at = ? "
                "WHERE id = ? AND state = 'queued'",
                (self._clock(), task.id),
            )
        return self.get(task.id)

    def cancel_requested(self, task_id: str) -> bool:
        rows = self._db.rows("SELECT cancel FROM background_tasks WHERE id = ?", (task_id,))
        return bool(rows and rows[0][0])

    def recover(self, max_attempts: int = 2) -> tuple[list[BackgroundTask], list[BackgroundTask]]:
        """At start (this process owns the data dir, so no other runs them): the tasks left running by a
        process that died. Queued again to resume, or failed once cut off `max_attempts` times."""
        cut = self._db.rows(f"SELECT {_COLUMNS} FROM background_tasks WHERE state = 'running'")
        resumed, failed = [], []
        with self._db.write() as db:
            for task in map(_task, cut):
                if task.cancel_requested:
                    db.execute(
                        "UPDATE background_tasks SET state = 'cancelled', ended_at = ? WHERE id = ?",
                        (self._clock(), task.id),
                    )
                elif task.attempts >= max_attempts:
                    reason = f"stopped by a restart {task.attempts} times; not tried again"
                    db.execute(
                        "UPDATE background_tasks SET state = 'failed', ended_at = ?, error = ? WHERE id = ?",
                        (self._clock(), reason, task.id),
                    )
                    failed.append(task.id)
                else:
                    db.execute(
                        "UPDATE background_tasks SET state = 'queued', note = ? WHERE id = ?",
                        ("resumed after Daemon stopped while it ran", task.id),
                    )
                    resumed.append(task.id)
        return [self.get(i) for i in resumed], [self.get(i) for i in failed]

    def close(self) -> None:
        self._db.close()


def _task(row: tuple[Any, ...]) -> BackgroundTask:
    """A row in `_COLUMNS` order as a task (the flags and the progress decoded)."""
    values = list(row)
    values[9], values[10], values[11] = int(values[9]), bool(values[10]), json.loads(values[11] or "{}")
    return BackgroundTask(*values)
