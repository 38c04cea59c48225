"""SessionEnd over a real journal and job table: which sessions end, and when nothing runs again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from memory.journal import Journal
from memory.shutdown.jobs import JobTable
from memory.shutdown.processor import ShutdownProcessor, StepContext
from memory.shutdown.session_end import SessionEnd
from ui.shared.idle import IdleSessionEnder

T0 = 1_700_000_000.0


class Counting:
    name = "count"
    needs_llm = False

    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    async def run(self, ctx: StepContext) -> dict[str, Any]:
        self.seen.append((ctx.session_id, len(ctx.turns)))
        return {"turns": len(ctx.turns)}


def setup(tmp_path: Path, clock: list[float]) -> tuple[SessionEnd, Journal, Counting]:
    journal = Journal(tmp_path / "j.sqlite3", clock=lambda: clock[0])
    step = Counting()
    processor = ShutdownProcessor([step], JobTable(tmp_path / "jobs.sqlite3"))
    return SessionEnd(processor, journal, llm_available=False), journal, step


def say(journal: Journal, session: str, text: str) -> None:
    journal.complete_turn(journal.begin_turn(session, text), "ok")


async def test_ending_twice_does_nothing_but_a_grown_session_is_processed_again(tmp_path: Path) -> None:
    clock = [T0]
    ender, journal, step = setup(tmp_path, clock)
    session = journal.new_session()
    say(journal, session, "one")
    first = await ender.end()  # the latest session by default
    assert first["session_id"] == session and step.seen == [(session, 1)]
    await ender.end(session)
    assert step.seen == [(session, 1)]
    say(journal, session, "two")
    await ender.end(session)
    assert step.seen == [(session, 1), (session, 2)]


async def test_only_sessions_quiet_long_enough_end_when_idle(tmp_path: Path) -> None:
    clock = [T0]
    ender, journal, step = setup(tmp_path, clock)
    quiet, busy = journal.new_session(), journal.new_session()
    say(journal, quiet, "hello")
    clock[0] = T0 + 3000
    say(journal, busy, "still here")
    reports = await ender.end_idle(idle_s=1800, now=T0 + 3600)
    assert [r["session_id"] for r in reports] == [quiet] and step.seen == [(quiet, 1)]
    assert await ender.end_idle(idle_s=1800, now=T0 + 3600) == []  # already processed: nothing reported
    idle = IdleSessionEnder(ender, idle_s=1800, clock=lambda: T0 + 6000)
    assert await asyncio.to_thread(idle.check_once) == 1 and step.seen[-1] == (busy, 1)  # its own loop


async def test_no_session_yet_is_a_clear_note(tmp_path: Path) -> None:
    ender, _, step = setup(tmp_path, [T0])
    report = await ender.end()
    assert report["note"] == "no session has turns yet" and step.seen == []
