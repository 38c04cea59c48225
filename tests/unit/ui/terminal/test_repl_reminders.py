"""A reminder in the terminal chat: the model proposes it, the user approves it, it fires at its time as a
line between turns, and one missed while Daemon was closed is listed when the chat starts."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from core.clocks import SettableClock
from core.providers.fake import ScriptedProvider, text_response, tool_response
from core.schedule.tasks import Firing
from core.schedule.when import parse_when
from core.tools.task_tools import task_tools
from core.types import ToolCall
from memory.tasks import TASKS_FILE, TaskStore
from tests.unit.ui.terminal.agent_chat import Line, chat_with_tools
from ui.shared.reminders import ReminderFeed

ZONE = ZoneInfo("Europe/Paris")
MONDAY = datetime(2026, 12, 7, 10, 0, tzinfo=ZONE)


def _book(tmp_path: Path, clock: SettableClock) -> TaskStore:
    return TaskStore(tmp_path / TASKS_FILE, ZONE, clock=clock)


def _chat(
    book: TaskStore, steps: list[Any], lines: list[Line], notified: list[Firing]
) -> tuple[str, ScriptedProvider]:
    tools = task_tools(book, lambda: datetime.fromtimestamp(book._clock(), ZONE))  # noqa: SLF001
    feed = ReminderFeed(book)
    return chat_with_tools(
        tools, steps, lines, reminders=feed, reminder_every_s=0.02, notifier=notified.extend
    )


def test_a_proposed_reminder_is_set_only_when_approved_and_fires_as_a_line_in_the_chat(
    tmp_path: Path,
) -> None:
    clock = SettableClock(MONDAY.timestamp())
    book = _book(tmp_path, clock)
    call = ToolCall("c1", "set_reminder", {"what": "stretch your legs", "when": "in 20 minutes"})
    steps = [tool_response(call), text_response("I proposed a reminder for 10:20.")]
    fired = threading.Event()
    notified: list[Firing] = []

    def wait_for_the_reminder() -> str:
        clock.now = MONDAY.timestamp() + 20 * 60  # twenty minutes later, at the prompt
        deadline = time.monotonic() + 10
        while not notified and time.monotonic() < deadline:
            time.sleep(0.02)
        fired.set()
        return "/quit"

    out, provider = _chat(
        book, steps, ["remind me to stretch in 20 minutes", "y", wait_for_the_reminder], notified
    )
    provider.assert_complete()
    assert "Run Remind you in 20 minutes (about Mon 7 Dec 2026 at 10:20): stretch your legs? [y/N]" in out
    assert "[set_reminder ok] Reminder task_" in out
    assert fired.is_set() and [f.text for f in notified] == ["stretch your legs"]
    assert "[Reminder: stretch your legs]\nyou> " in out
    assert book.tasks() == []  # fired once, done


def test_a_time_the_model_cannot_place_goes_back_to_it_and_nothing_is_proposed(tmp_path: Path) -> None:
    clock = SettableClock(MONDAY.timestamp())
    book = _book(tmp_path, clock)
    vague = ToolCall("c1", "set_reminder", {"what": "call mum", "when": "next blursday"})
    asked = "When next week should I remind you? 'blursday' is not a day I know."
    out, provider = _chat(
        book, [tool_response(vague), text_response(asked)], ["remind me next blursday", "/quit"], []
    )
    assert "could not read 'next blursday'" in provider.requests[1].messages[-1].content
    assert "[y/N]" not in out and asked in out
    assert book.tasks(include_finished=True) == []


def test_a_reminder_missed_while_daemon_was_closed_is_listed_when_the_chat_starts(tmp_path: Path) -> None:
    clock = SettableClock(MONDAY.timestamp())
    _book(tmp_path, clock).add("call the dentist", parse_when("Thursday at 9", MONDAY), origin="cli")
    clock.now = datetime(2026, 12, 11, 18, 0, tzinfo=ZONE).timestamp()
    notified: list[Firing] = []
    out, _ = _chat(_book(tmp_path, clock), [], ["/quit"], notified)
    missed = "[Reminder (missed while Daemon was closed, due Thu 10 Dec 2026 at 09:00): call the dentist]"
    assert missed in out and out.index(missed) < out.index("you> ")
    assert [f.text for f in notified] == ["call the dentist"]
