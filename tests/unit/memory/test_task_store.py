"""The task book: a slot fires once whichever process sees it, a repeating task missed across slots fires
once, every open front end sees a firing, the ones missed while Daemon was closed are shown at start."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.clocks import SettableClock
from core.errors import UserInputError
from core.schedule.when import parse_when
from memory.tasks import TASKS_FILE, TaskStore
from ui.shared.reminders import ReminderFeed

ZONE = ZoneInfo("Europe/Paris")
MONDAY = datetime(2026, 12, 7, 10, 0, tzinfo=ZONE)


@pytest.fixture
def clock() -> SettableClock:
    return SettableClock(MONDAY.timestamp())


def _book(tmp_path: Path, clock: SettableClock) -> TaskStore:
    return TaskStore(tmp_path / TASKS_FILE, ZONE, clock=clock)


def _at(day: int, hour: int, minute: int = 0) -> float:
    return datetime(2026, 12, day, hour, minute, tzinfo=ZONE).timestamp()


def test_a_one_off_reminder_fires_once_at_its_time_and_is_then_done(
    tmp_path: Path, clock: SettableClock
) -> None:
    book = _book(tmp_path, clock)
    task = book.add("call the dentist", parse_when("Thursday at 9", MONDAY), origin="cli")
    assert book.claim_due(_at(10, 8, 59)) == []
    fired = book.claim_due(_at(10, 9, 0))
    assert [(f.task_id, f.text, f.late) for f in fired] == [(task.id, "call the dentist", False)]
    assert book.claim_due(_at(10, 9, 1)) == []
    assert book.tasks() == []
    assert [t.status for t in book.tasks(include_finished=True)] == ["done"]


def test_a_repeating_task_missed_across_three_slots_fires_once_and_moves_past_now(
    tmp_path: Path, clock: SettableClock
) -> None:
    book = _book(tmp_path, clock)
    book.add("water the plants", parse_when("every day at 8", MONDAY), origin="cli")  # first: Tue 8th 08:00
    fired = book.claim_due(_at(10, 12))  # Daemon was closed Tue, Wed and Thu morning
    assert len(fired) == 1
    assert fired[0].missed_slots == 2 and fired[0].late
    assert "2 more times were missed" in fired[0].line(ZONE)
    assert fired[0].due_at == _at(8, 8)
    (task,) = book.tasks()
    assert task.next_at == _at(11, 8)
    assert book.claim_due(_at(10, 13)) == []


def test_two_processes_sharing_the_book_fire_a_slot_once(tmp_path: Path, clock: SettableClock) -> None:
    gui, terminal = _book(tmp_path, clock), _book(tmp_path, clock)
    gui.add("stand up", parse_when("in 20 minutes", MONDAY), origin="gui")
    due = _at(7, 10, 20)
    assert len(gui.claim_due(due)) + len(terminal.claim_due(due)) == 1


def test_every_open_front_end_shows_a_firing_and_a_later_start_does_not_repeat_it(
    tmp_path: Path, clock: SettableClock
) -> None:
    book = _book(tmp_path, clock)
    gui, chat = ReminderFeed(book), ReminderFeed(_book(tmp_path, clock))
    assert gui.at_start().shown == [] and chat.at_start().shown == []
    book.add("stand up", parse_when("in 20 minutes", MONDAY), origin="gui")
    clock.now = _at(7, 10, 21)
    from_chat = chat.due()
    from_gui = gui.due()
    assert [f.text for f in from_chat.shown] == [f.text for f in from_gui.shown] == ["stand up"]
    assert len(from_chat.fired_here) + len(from_gui.fired_here) == 1  # one system notification
    assert ReminderFeed(book).at_start().shown == []  # seen already


def test_a_reminder_due_while_daemon_was_closed_is_shown_at_the_next_start(
    tmp_path: Path, clock: SettableClock
) -> None:
    book = _book(tmp_path, clock)
    book.add("call the dentist", parse_when("Thursday at 9", MONDAY), origin="cli")
    book.close()
    clock.now = _at(11, 18)  # the next start, Friday evening
    batch = ReminderFeed(_book(tmp_path, clock)).at_start()
    assert [f.line(ZONE) for f in batch.shown] == [
        "Reminder (missed while Daemon was closed, due Thu 10 Dec 2026 at 09:00): call the dentist"
    ]
    assert batch.fired_here == batch.shown


def test_removing_a_task_keeps_it_listed_as_removed_and_it_never_fires(
    tmp_path: Path, clock: SettableClock
) -> None:
    book = _book(tmp_path, clock)
    task = book.add("stand up", parse_when("every hour", MONDAY), origin="cli")
    assert book.remove(task.id).status == "removed"
    assert book.tasks() == [] and [t.id for t in book.tasks(include_finished=True)] == [task.id]
    assert book.claim_due(_at(9, 10)) == []
    with pytest.raises(UserInputError, match="no task 'task_nope'"):
        book.remove("task_nope")


def test_a_reminder_needs_words_and_survives_reopening(tmp_path: Path, clock: SettableClock) -> None:
    book = _book(tmp_path, clock)
    with pytest.raises(UserInputError):
        book.add("   ", parse_when("in 5 minutes", MONDAY), origin="cli")
    rule = parse_when("every Monday and Thursday at 8", MONDAY)
    task = book.add("gym", rule, origin="chat")
    book.close()
    (again,) = _book(tmp_path, clock).tasks()
    assert again == task and again.recurrence == rule.recurrence
