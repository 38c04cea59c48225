"""Reminders in the terminal: `task add|list|remove`, and the lines a due reminder prints in the chat.

In the chat a reminder is printed on its own line while the user is at the prompt (the prompt is shown
again after it), and held while a reply is streaming, then printed when the reply ends, so it never cuts
into an answer.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import TextIO

from core.schedule.tasks import Firing, Task
from core.schedule.when import When
from memory.background import BackgroundTask
from ui.shared.background import task_detail
from ui.shared.payloads import print_json

PROMPT = "you> "


@dataclass
class ReminderLines:
    """Prints due reminders between turns: at once at the prompt, after the reply while one streams."""

    zone: tzinfo
    out: TextIO | None = None  # None: sys.stdout as it is when a line is printed
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _busy: bool = False
    _held: list[Firing] = field(default_factory=list)

    def show(self, firings: list[Firing]) -> None:
        """Print `firings` now, or when the running turn ends (callable from any thread)."""
        with self._lock:
            if self._busy:
                self._held.extend(firings)
                return
            self._print(firings, prompt_again=True)

    def missed(self, firings: list[Firing]) -> None:
        """The reminders shown at start (fired while Daemon was closed, or not yet seen anywhere)."""
        with self._lock:
            self._print(firings, prompt_again=False)

    @contextmanager
    def turn(self) -> Iterator[None]:
        """While a reply streams: hold reminders, print them after it."""
        with self._lock:
            self._busy = True
        try:
            yield None
        finally:
            with self._lock:
                self._busy = False
                held, self._held = self._held, []
                self._print(held, prompt_again=False)

    def _print(self, firings: list[Firing], *, prompt_again: bool) -> None:
        if not firings:
            return
        lines = "\n".join(f"[{firing.line(self.zone)}]" for firing in firings)
        out = self.out or sys.stdout
        out.write(f"\n{lines}\n" + (PROMPT if prompt_again else ""))
        out.flush()


def task_line(task: Task, zone: tzinfo) -> str:
    mark = "" if task.status == "active" else f"  ({task.status})"
    run = "run: " if task.kind == "agent" else ""
    return f"{task.id}  {task.describe_when(zone)}  {run}{task.text}{mark}"


def task_payload(task: Task, zone: tzinfo) -> dict[str, object]:
    """One task in `task ... --json`."""
    next_at = datetime.fromtimestamp(task.next_at, zone).isoformat() if task.next_at is not None else None
    return {
        "id": task.id,
        "text": task.text,
        "status": task.status,
        "next_at": next_at,
        "when": task.describe_when(zone),
        "repeats": task.recurrence.describe() if task.recurrence else None,
        "origin": task.origin,
        "kind": task.kind,
    }


def show_added(task: Task, when: When, zone: tzinfo, *, as_json: bool) -> int:
    if as_json:
        print_json({"task": task_payload(task, zone)})
    else:
        what = "scheduled task" if task.kind == "agent" else "reminder"
        print(f"{what} {task.id}: {when.describe()}: {task.text}")
    return 0


def show_tasks(tasks: list[Task], background: list[BackgroundTask], zone: tzinfo, *, as_json: bool) -> int:
    """Reminders, then background tasks (newest first) with their state and progress."""
    if as_json:
        print_json(
            {
                "tasks": [task_payload(t, zone) for t in tasks],
                "background": [b.to_json() for b in background],
                "timezone": str(zone),
            }
        )
        return 0
    if not tasks:
        print("no reminders (add one: python main.py task add 'call the dentist' --when 'Thursday at 9')")
    for task in tasks:
        print(task_line(task, zone))
    if background:
        print("\nbackground tasks:")
    for job in background:
        print(f"{job.id}  [{job.state}]  {job.title}  {task_detail(job)}".rstrip())
    return 0


def show_cancelled(task: BackgroundTask, *, as_json: bool) -> int:
    if as_json:
        print_json({"background": task.to_json()})
    elif task.state == "cancelled":
        print(f"cancelled {task.id}: {task.title}")
    else:
        print(f"{task.id} will stop at its next step (the running Daemon reads the request): {task.title}")
    return 0


def show_removed(task: Task, zone: tzinfo, *, as_json: bool) -> int:
    if as_json:
        print_json({"task": task_payload(task, zone)})
    else:
        print(f"removed {task.id}: {task.text}")
    return 0
