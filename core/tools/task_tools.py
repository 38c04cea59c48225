"""The agent's reminder tools over the user's task book: `set_reminder` (proposed, the user approves),
`schedule_task` (work run as a background task at each slot; proposed too), `list_reminders` and
`cancel_reminder` (proposed: it changes the book).

`set_reminder` takes the time in words, as the user said it ("Thursday at 9", "every Monday at 8"); the
words are read by `core.schedule.when` in the user's zone, and the proposal the user approves says the
moment read ("Remind you Thu 10 Dec 2026 at 09:00: call the dentist"). Words that are not a time, a moment
already past or a rule that never happens go back to the model as a question for the user, never a guess.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from core.errors import ToolRetry, UserInputError
from core.schedule.tasks import Task, TaskBook
from core.schedule.when import When, parse_when
from core.tools.base import Tool

TASK_TOOL_NAMES = frozenset({"set_reminder", "schedule_task", "list_reminders", "cancel_reminder"})
REMINDER_HINT = (
    r"\b(remind|reminder|reminders|alarm|nudge|don'?t let me forget|schedule|every (day|week|month|morning|"
    r"evening|monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday))\b"
)


def task_tools(book: TaskBook, now: Callable[[], datetime]) -> tuple[Tool, ...]:
    """The reminder tools over `book`; `now()` is the current moment in the user's zone."""

    def read(arguments: dict[str, Any]) -> tuple[str, When]:
        what = " ".join(str(arguments.get("what", "")).split())
        if not what:
            raise ToolRetry("say what to remind the user of (`what`)")
        try:
            return what, parse_when(str(arguments.get("when", "")), now())
        except UserInputError as unreadable:
            raise ToolRetry(f"{unreadable} Ask the user; do not guess a time.") from None

    def preview_reminder(arguments: dict[str, Any]) -> str:
        what, when = read(arguments)
        return f"Remind you {when.describe()}: {what}"

    def set_reminder(what: str, when: str) -> str:
        """Set a reminder for the user (they approve it first). Use the user's own words for the time.

        Args:
            what: what to remind them of, e.g. "call the dentist".
            when: when, in words: "Thursday at 9", "tomorrow at 18:00", "in 20 minutes", "every Monday at
                8", "the 1st of every month".
        """
        text, moment = read({"what": what, "when": when})
        task = book.add(text, moment, origin="chat")
        return f"Reminder {task.id} set: {moment.describe()}: {task.text}"

    def preview_schedule(arguments: dict[str, Any]) -> str:
        what, when = read(arguments)
        described = when.describe()
        return f"{described[:1].upper()}{described[1:]}, run in the background: {what}"

    def schedule_task(what: str, when: str) -> str:
        """Schedule work Daemon does by itself at a time or on a rule, as a background task whose result
        the user gets in the chat (they approve it first), e.g. "every Monday at 8" + "summarise what I
        told you last week". For a plain reminder use set_reminder.

        Args:
            what: the work to do, in full (it runs with nothing else to go on).
            when: when, in words: "every Monday at 8", "tomorrow at 7", "the 1st of every month".
        """
        text, moment = read({"what": what, "when": when})
        task = book.add(text, moment, origin="chat", kind="agent")
        return f"Scheduled {task.id}: {moment.describe()}: {task.text}"

    hint = REMINDER_HINT
    return (
        Tool.from_function(set_reminder, use_when=hint, side_effects=True, preview=preview_reminder),
        Tool.from_function(schedule_task, use_when=hint, side_effects=True, preview=preview_schedule),
        *_book_tools(book, now),
    )


def _book_tools(book: TaskBook, now: Callable[[], datetime]) -> tuple[Tool, ...]:
    """Listing the reminders and cancelling one."""

    def list_reminders() -> str:
        """List the user's active reminders with their ids and next times."""
        tasks = book.tasks()
        if not tasks:
            return "No reminders are set."
        zone = now().tzinfo
        assert zone is not None
        return "\n".join(_line(task, zone) for task in tasks)

    def preview_cancel(arguments: dict[str, Any]) -> str:
        wanted = str(arguments.get("task_id", "")).strip()
        task = next((t for t in book.tasks() if t.id == wanted), None)
        if task is None:
            raise ToolRetry(f"no active reminder {wanted!r}; list_reminders shows their ids")
        return f"Cancel the reminder “{task.text}”"

    def cancel_reminder(task_id: str) -> str:
        """Cancel one of the user's reminders (they approve it first).

        Args:
            task_id: the reminder's id, as list_reminders shows it.
        """
        task = book.remove(task_id)
        return f"Reminder {task.id} cancelled: {task.text}"

    hint = REMINDER_HINT
    return (
        Tool.from_function(list_reminders, use_when=hint),
        Tool.from_function(cancel_reminder, use_when=hint, side_effects=True, preview=preview_cancel),
    )


def _line(task: Task, zone: Any) -> str:
    return f"{task.id}: {task.describe_when(zone)}: {task.text}"
