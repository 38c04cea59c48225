"""The task book: reminders and their firings in `tasks.sqlite3` in the data dir (WAL, synchronous=FULL).

Several processes may share it (the GUI, a terminal chat, `task add` from a shell): SQLite's locking keeps
them apart, and `claim_due` fires a slot in the same transaction that moves the task on, so a slot fires
once whichever process sees it first. Each front end then reads the firings after its own cursor, so a
reminder reaches every front end that is open; the firings nobody saw are the ones missed while Daemon was
closed, listed at the next start.

A repeating task that missed slots fires once (with the count of missed slots) and moves to its first slot
after now. Removing a task marks it removed; nothing the user wrote is deleted here.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from core.errors import UserInputError
from core.schedule.recurrence import Recurrence
from core.schedule.tasks import Firing, Task, TaskKind
from core.schedule.when import When
from core.sqlite_db import DurableDB, Migration

TASKS_FILE = "tasks.sqlite3"
TASK_MIGRATIONS: tuple[Migration, ...] = (
    (
        "tasks_001",
        """
        CREATE TABLE tasks (
            id TEXT PRIMARY KEY, kind TEXT NOT NULL, text TEXT NOT NULL, created_at REAL NOT NULL,
            next_at REAL, recurrence TEXT, status TEXT NOT NULL, origin TEXT NOT NULL, last_fired_at REAL
        );
        CREATE INDEX tasks_due ON tasks (status, next_at);
        CREATE TABLE firings (
            id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT NOT NULL REFERENCES tasks (id),
            text TEXT NOT NULL, due_at REAL NOT NULL, fired_at REAL NOT NULL, missed_slots INTEGER NOT NULL,
            seen_at REAL
        )
        """,
    ),
    # A notice (a background task finished) reaches the front ends the way a due reminder does.
    ("tasks_002_notices", "ALTER TABLE firings ADD COLUMN kind TEXT NOT NULL DEFAULT 'reminder'"),
)
_TASK_COLUMNS = "id, kind, text, created_at, next_at, recurrence, status, origin, last_fired_at"
_FIRING_COLUMNS = "id, task_id, text, due_at, fired_at, missed_slots, kind"
_MAX_TEXT = 2000


class TaskStore:
    """The task book (`core.schedule.tasks.TaskBook`), in the user's time zone `zone`."""

    def __init__(self, path: Path, zone: tzinfo, *, clock: Callable[[], float] = time.time) -> None:
        self._db = DurableDB(path, TASK_MIGRATIONS, what="task book")
        self.zone = zone
        self._clock = clock

    def add(self, text: str, when: When, *, origin: str, kind: TaskKind = "reminder") -> Task:
        """Add an active task; its text is what the reminder will say (kind "agent": what a background
        task does at each slot)."""
        text = " ".join(text.split())
        if not text:
            raise UserInputError("a reminder needs something to remind you of")
        if len(text) > _MAX_TEXT:
            raise UserInputError(f"a reminder's text is at most {_MAX_TEXT} characters")
        task = Task(
            id="task_" + uuid.uuid4().hex[:10],
            text=text,
            created_at=self._clock(),
            next_at=when.first.timestamp(),
            recurrence=when.recurrence,
            status="active",
            origin=origin,
            kind=kind,
        )
        rule = json.dumps(task.recurrence.to_json()) if task.recurrence else None
        with self._db.write() as db:
            db.execute(
                f"INSERT INTO tasks ({_TASK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    task.id,
                    task.kind,
                    task.text,
                    task.created_at,
                    task.next_at,
                    rule,
                    task.status,
                    origin,
                    None,
                ),
            )
        return task

    def tasks(self, *, include_finished: bool = False) -> list[Task]:
        """Active tasks by their next slot, then (with `include_finished`) the done and removed ones."""
        active = self._tasks("WHERE status = 'active' ORDER BY next_at, created_at")
        if not include_finished:
            return active
        return active + self._tasks("WHERE status != 'active' ORDER BY created_at DESC")

    def get(self, task_id: str) -> Task:
        found = self._tasks("WHERE id = ?", (task_id.strip(),))
        if not found:
            raise UserInputError(f"no task {task_id!r}; `task list` shows their ids")
        return found[0]

    def remove(self, task_id: str) -> Task:
        """Stop a task; it stays in the book, marked removed (`task list --all` shows it)."""
        task = self.get(task_id)
        if task.status == "removed":
            return task
        with self._db.write() as db:
            db.execute("UPDATE tasks SET status = 'removed', next_at = NULL WHERE id = ?", (task.id,))
        return self.get(task.id)

    def claim_due(self, now: float | None = None) -> list[Firing]:
        """Fire every slot that has come due: one firing per task, the task moved to its next slot (or
        done). The claim and the move are one transaction, so another process never fires it again."""
        moment = self._clock() if now is None else now
        fired: list[Firing] = []
        with self._db.write() as db:
            rows = db.execute(
                f"SELECT {_TASK_COLUMNS} FROM tasks WHERE status = 'active' AND next_at <= ? "
                "ORDER BY next_at",
                (moment,),
            ).fetchall()
            for task in map(_task, rows):
                assert task.next_at is not None
                missed, following = self._after(task, moment)
                cursor = db.execute(
                    "INSERT INTO firings (task_id, text, due_at, fired_at, missed_slots, kind) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (task.id, task.text, task.next_at, moment, missed, task.kind),
                )
                status = "active" if following is not None else "done"
                db.execute(
                    "UPDATE tasks SET next_at = ?, status = ?, last_fired_at = ? WHERE id = ?",
                    (following, status, moment, task.id),
                )
                fired.append(
                    Firing(
                        int(cursor.lastrowid or 0),
                        task.id,
                        task.text,
                        task.next_at,
                        moment,
                        missed,
                        task.kind,
                    )
                )
        return fired

    def _after(self, task: Task, moment: float) -> tuple[int, float | None]:
        """How many more slots passed unseen before `moment`, and the first slot after it (None: done)."""
        if task.recurrence is None or task.next_at is None:
            return 0, None
        now = datetime.fromtimestamp(moment, self.zone)
        slot = datetime.fromtimestamp(task.next_at, self.zone)
        missed = 0
        while (slot := task.recurrence.next_after(slot, self.zone)) <= now:
            missed += 1
            if missed >= 1000:  # a minutely rule left for days: the count is enough, jump to now
                slot = task.recurrence.next_after(now, self.zone)
                break
        return missed, slot.timestamp()

    def announce(self, text: str, *, origin: str) -> Firing:
        """A notice for every open front end (and the next start, if none is open): shown like a due
        reminder, kept as a finished task of kind "notice" (`task list --all`)."""
        now = self._clock()
        notice_id = "notice_" + uuid.uuid4().hex[:10]
        with self._db.write() as db:
            db.execute(
                f"INSERT INTO tasks ({_TASK_COLUMNS}) VALUES (?, 'notice', ?, ?, NULL, NULL, 'done', ?, ?)",
                (notice_id, text, now, origin, now),
            )
            cursor = db.execute(
                "INSERT INTO firings (task_id, text, due_at, fired_at, missed_slots, kind) "
                "VALUES (?, ?, ?, ?, 0, 'notice')",
                (notice_id, text, now, now),
            )
        return Firing(int(cursor.lastrowid or 0), notice_id, text, now, now, 0, "notice")

    def firings_after(self, firing_id: int) -> list[Firing]:
        """Firings newer than `firing_id`, oldest first (a front end's feed past its cursor)."""
        rows = self._db.rows(f"SELECT {_FIRING_COLUMNS} FROM firings WHERE id > ? ORDER BY id", (firing_id,))
        return [_firing(row) for row in rows]

    def unseen(self) -> list[Firing]:
        """Firings no front end showed yet (fired while none was open), oldest first."""
        rows = self._db.rows(f"SELECT {_FIRING_COLUMNS} FROM firings WHERE seen_at IS NULL ORDER BY id")
        return [_firing(row) for row in rows]

    def mark_seen(self, firings: list[Firing]) -> None:
        if not firings:
            return
        with self._db.write() as db:
            db.executemany(
                "UPDATE firings SET seen_at = ? WHERE id = ? AND seen_at IS NULL",
                [(self._clock(), f.id) for f in firings],
            )

    def last_firing_id(self) -> int:
        rows = self._db.rows("SELECT COALESCE(MAX(id), 0) FROM firings")
        return int(rows[0][0])

    def _tasks(self, where: str, params: tuple[Any, ...] = ()) -> list[Task]:
        return [_task(row) for row in self._db.rows(f"SELECT {_TASK_COLUMNS} FROM tasks {where}", params)]

    def close(self) -> None:
        self._db.close()


def _task(row: tuple[Any, ...]) -> Task:
    task_id, kind, text, created_at, next_at, rule, status, origin, last_fired_at = row
    recurrence = Recurrence.from_json(json.loads(rule)) if rule else None
    return Task(task_id, text, created_at, next_at, recurrence, status, origin, kind, last_fired_at)


def _firing(row: tuple[Any, ...]) -> Firing:
    firing_id, task_id, text, due_at, fired_at, missed, kind = row
    return Firing(int(firing_id), task_id, text, due_at, fired_at, int(missed), kind)
