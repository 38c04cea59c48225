"""Scheduled tasks: "every Monday at 8, summarise my week" starts a background task at its slot (once, even
after missed slots), and says so plainly when there is no model to run it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from core.agent.subagent import SubagentResult
from core.clocks import SettableClock
from core.events import RunEvent
from core.schedule.when import parse_when
from core.types import Usage
from memory.background import BACKGROUND_FILE, BackgroundLedger
from memory.tasks import TASKS_FILE, TaskStore
from tests.unit.ui.shared.background_helpers import wait_for
from ui.shared.background import BackgroundRunner, scheduled_runs
from ui.shared.reminders import ReminderFeed, reminders_delivered

ZONE = ZoneInfo("Europe/Paris")
MONDAY = datetime(2026, 12, 7, 7, 0, tzinfo=ZONE)


class Summariser:
    budget = "up to 1 round"

    async def run(
        self,
        task: str,
        *,
        cancel: asyncio.Event | None = None,
        progress: Callable[[RunEvent], None] | None = None,
    ) -> SubagentResult:
        return SubagentResult(f"summary of: {task}", "answer", Usage(), (), "sub-x", 0.0)


def test_a_weekly_task_missed_for_three_weeks_starts_one_background_task(tmp_path: Path) -> None:
    clock = SettableClock(MONDAY.timestamp())
    book = TaskStore(tmp_path / TASKS_FILE, ZONE, clock=clock)
    book.add(
        "summarise what I told you last week",
        parse_when("every Monday at 8", MONDAY),
        origin="cli",
        kind="agent",
    )
    ledger = BackgroundLedger(tmp_path / BACKGROUND_FILE)
    runner = BackgroundRunner(ledger, {"researcher": Summariser()})
    runner.start()
    clock.now = datetime(2026, 12, 23, 9, 0, tzinfo=ZONE).timestamp()  # three Mondays later
    shown: list[str] = []
    act = scheduled_runs(runner, book)
    with reminders_delivered(
        ReminderFeed(book), lambda f: shown.extend(x.line(ZONE) for x in f), every_s=60, act=act
    ):
        pass
    wait_for(lambda: bool(ledger.tasks()) and ledger.tasks()[0].state == "done")
    (task,) = ledger.tasks()
    assert task.prompt == "summarise what I told you last week" and task.origin == "schedule"
    assert task.result == "summary of: summarise what I told you last week"
    assert shown == ["Scheduled task started in the background: summarise what I told you last week"]
    runner.close()


def test_without_a_model_a_scheduled_task_is_announced_as_not_run(tmp_path: Path) -> None:
    clock = SettableClock(MONDAY.timestamp())
    book = TaskStore(tmp_path / TASKS_FILE, ZONE, clock=clock)
    book.add("tidy my notes", parse_when("in 5 minutes", MONDAY), origin="cli", kind="agent")
    clock.now += 600
    feed = ReminderFeed(book)
    scheduled_runs(None, book)(feed.at_start().fired_here)
    (notice,) = feed.due().shown
    assert notice.line(ZONE) == "Scheduled task not run (it needs a connected model): tidy my notes"
