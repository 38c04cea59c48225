"""The task book (reminders) and the user's time zone it reads and shows times in."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import ExitStack
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.config import AppConfig
    from core.generation.action_requests import ActionRequests
    from core.tools.catalog import ToolCatalog
    from memory.tasks import TaskStore


def open_task_book(
    config: AppConfig, env: Mapping[str, str], stack: ExitStack, *, clock: Callable[[], float] | None = None
) -> TaskStore:
    """`tasks.sqlite3` in the data dir, closed with `stack`. It needs no data-dir lock: SQLite keeps the
    processes that share it apart (`task add` beside a running GUI)."""
    import time

    from core.schedule.zone import user_zone
    from memory.tasks import TASKS_FILE, TaskStore

    config.data_dir.mkdir(parents=True, exist_ok=True)
    zone = user_zone(config.user.timezone, dict(env))  # `user.timezone`, else the system's
    book = TaskStore(config.data_dir / TASKS_FILE, zone, clock=clock or time.time)
    stack.callback(book.close)
    return book


def now_in(book: TaskStore) -> Callable[[], datetime]:
    """The current moment in the book's zone (what the task tools read times against)."""
    return lambda: datetime.now(book.zone)


def action_requests(catalog: ToolCatalog, book: TaskStore) -> ActionRequests | None:
    """ "Remind me …", "add … to my to-dos", "make a note …" read into proposals for the embedded model
    (which cannot call the tools itself)."""
    from core.generation.action_requests import ActionRequests, NotebookRequests, ReminderRequests

    tools = catalog.available
    readers: list[ReminderRequests | NotebookRequests] = []
    if (reminder := tools.get("set_reminder")) is not None:
        readers.append(ReminderRequests(reminder, now_in(book)))
    todo, note = tools.get("add_todo"), tools.get("add_note")
    if todo is not None and note is not None:
        readers.append(NotebookRequests(todo, note))
    return ActionRequests(tuple(readers)) if readers else None
