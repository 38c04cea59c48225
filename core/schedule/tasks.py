"""What a scheduled task and one of its firings are, and the port the tools and front ends reach the task
book through (the SQLite book itself is `memory/tasks.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Literal, Protocol

from core.schedule.recurrence import Recurrence
from core.schedule.when import When, describe_moment

TaskStatus = Literal["active", "done", "removed"]
TaskKind = Literal["reminder", "agent", "notice"]  # agent: a background task run at each slot


@dataclass(frozen=True)
class Task:
    """A reminder: what to say, when next (None once a one-off has fired) and, if it repeats, its rule."""

    id: str
    text: str
    created_at: float
    next_at: float | None
    recurrence: Recurrence | None
    status: TaskStatus
    origin: str  # who added it: "cli", "chat" (approved from a proposal), "gui"
    kind: TaskKind = "reminder"
    last_fired_at: float | None = None

    def describe_when(self, zone: tzinfo) -> str:
        """ "Thu 10 Dec 2026 at 09:00" or "every Monday at 08:00 (next: …)"; "done" once a one-off fired."""
        if self.next_at is None:
            return "done" if self.status == "done" else self.status
        first = datetime.fromtimestamp(self.next_at, zone)
        return When(first, self.recurrence).describe()


@dataclass(frozen=True)
class Firing:
    """One slot of a task that came due: `missed_slots` > 0 when slots passed while Daemon was closed
    (a repeating task still fires once, never once per missed slot)."""

    id: int
    task_id: str
    text: str
    due_at: float
    fired_at: float
    missed_slots: int = 0
    kind: str = "reminder"  # "agent": a scheduled background task started; "notice": one finished

    @property
    def late(self) -> bool:
        """Fired well after its time (Daemon was closed then): the front ends say when it was due."""
        return self.fired_at - self.due_at > LATE_AFTER_S or self.missed_slots > 0

    def line(self, zone: tzinfo) -> str:
        """The one line every front end shows: "Reminder: call the dentist" (+ when it was due, if late)."""
        if self.kind == "notice":
            return self.text
        if self.kind == "agent":
            return f"Scheduled task started in the background: {self.text}"
        if not self.late:
            return f"Reminder: {self.text}"
        due = describe_moment(datetime.fromtimestamp(self.due_at, zone))
        also = f"; {self.missed_slots} more times were missed" if self.missed_slots > 1 else ""
        also = "; once more was missed" if self.missed_slots == 1 else also
        return f"Reminder (missed while Daemon was closed, due {due}{also}): {self.text}"


LATE_AFTER_S = 120.0  # a firing this long after its slot was not seen on time


class TaskBook(Protocol):
    """The user's scheduled tasks, as the tools and front ends use them."""

    def add(self, text: str, when: When, *, origin: str, kind: TaskKind = "reminder") -> Task:
        """Add an active task whose first slot is `when.first` (kind "agent": run `text` as a background
        task at each slot)."""
        ...

    def tasks(self, *, include_finished: bool = False) -> list[Task]:
        """Active tasks by their next slot (with `include_finished`, done and removed ones after them)."""
        ...

    def remove(self, task_id: str) -> Task:
        """Stop a task (kept, marked removed: nothing the user wrote is deleted); unknown: UserInputError."""
        ...
