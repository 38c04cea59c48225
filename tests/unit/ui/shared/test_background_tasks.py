"""Background tasks: progress written as they run, at most N at once, cancelled from here or from another
process, results handed on, and tasks cut off by a crash resumed (or failed after two) at the next start."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from core.agent.subagent import SubagentResult
from core.errors import UserInputError
from core.events import RunEvent, ToolCallStarted, UsageUpdate
from core.types import ToolCall, Usage
from memory.background import BACKGROUND_FILE, BackgroundLedger, BackgroundTask
from tests.unit.ui.shared.background_helpers import wait_for
from ui.shared.background import BackgroundRunner


class SteppedAgent:
    """Reports a model call and a tool call, then waits until released (or cancelled)."""

    budget = "up to 1 round"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.ran: list[str] = []

    async def run(
        self,
        task: str,
        *,
        cancel: asyncio.Event | None = None,
        progress: Callable[[RunEvent], None] | None = None,
    ) -> SubagentResult:
        assert cancel is not None and progress is not None
        self.ran.append(task)
        progress(UsageUpdate(Usage(10, 5), Usage(10, 5)))
        progress(ToolCallStarted(ToolCall("c", "search_memory", {})))
        while not self.release.is_set() and not cancel.is_set():
            await asyncio.sleep(0.01)
        reason = "cancelled" if cancel.is_set() else "answer"
        return SubagentResult(f"found it: {task}", reason, Usage(10, 5), (), "sub-1", 0.1)


@pytest.fixture
def ledger(tmp_path: Path) -> BackgroundLedger:
    return BackgroundLedger(tmp_path / BACKGROUND_FILE)


def test_a_task_reports_progress_and_its_result_is_handed_on(ledger: BackgroundLedger) -> None:
    agent, finished = SteppedAgent(), []

    async def on_done(task: BackgroundTask, result: SubagentResult | None) -> None:
        finished.append((task.state, result.answer if result else None))

    runner = BackgroundRunner(ledger, {"researcher": agent}, on_done=on_done)
    runner.start()
    task = runner.submit("what did I read in May?", "researcher", origin="chat")
    wait_for(lambda: ledger.get(task.id).progress.get("tool_calls") == 1)
    running = ledger.get(task.id)
    assert running.state == "running" and running.progress == {
        "rounds": 1,
        "tool_calls": 1,
        "tokens": 15,
        "last": "using search_memory",
    }
    agent.release.set()
    wait_for(lambda: bool(finished))
    assert finished == [("done", "found it: what did I read in May?")]
    assert ledger.get(task.id).result == "found it: what did I read in May?"
    runner.close()


def test_at_most_n_run_at_once_and_the_next_starts_when_one_ends(ledger: BackgroundLedger) -> None:
    agent = SteppedAgent()
    runner = BackgroundRunner(ledger, {"researcher": agent}, max_running=1)
    runner.start()
    first = runner.submit("first", "researcher", origin="chat")
    second = runner.submit("second", "researcher", origin="chat")
    wait_for(lambda: ledger.get(first.id).state == "running")
    time.sleep(0.2)
    assert ledger.get(second.id).state == "queued" and agent.ran == ["first"]
    agent.release.set()
    wait_for(lambda: ledger.get(second.id).state == "done")
    runner.close()


def test_a_task_is_cancelled_from_here_or_from_another_process(
    ledger: BackgroundLedger, tmp_path: Path
) -> None:
    agent = SteppedAgent()
    runner = BackgroundRunner(ledger, {"researcher": agent}, max_running=1, cancel_check_s=0.05)
    runner.start()
    here = runner.submit("cancel me here", "researcher", origin="gui")
    queued = runner.submit("cancel me while queued", "researcher", origin="gui")
    wait_for(lambda: ledger.get(here.id).state == "running")
    assert runner.cancel(queued.id).state == "cancelled"  # never started
    runner.cancel(here.id)
    wait_for(lambda: ledger.get(here.id).state == "cancelled")
    there = runner.submit("cancel me from a shell", "researcher", origin="gui")
    wait_for(lambda: ledger.get(there.id).state == "running")
    BackgroundLedger(tmp_path / BACKGROUND_FILE).request_cancel(there.id)  # another process's ledger
    wait_for(lambda: ledger.get(there.id).state == "cancelled")
    assert agent.ran == ["cancel me here", "cancel me from a shell"]
    with pytest.raises(UserInputError, match="already ended"):
        runner.cancel(here.id)
    runner.close()


def test_tasks_cut_off_by_a_crash_are_resumed_and_failed_after_two(ledger: BackgroundLedger) -> None:
    once = ledger.create("cut off once", "researcher", origin="chat")
    twice = ledger.create("cut off twice", "researcher", origin="chat")
    ledger.start(twice.id)  # the process that ran it died here,
    ledger.recover()  # the restart resumed it ...
    ledger.start(twice.id)  # ... and that process died again
    ledger.start(once.id)  # (this one was cut off once)
    agent = SteppedAgent()
    agent.release.set()
    runner = BackgroundRunner(ledger, {"researcher": agent})
    resumed, failed = runner.start()
    assert [t.id for t in resumed] == [once.id]
    assert resumed[0].note == "resumed after Daemon stopped while it ran"
    assert [t.id for t in failed] == [twice.id] and "stopped by a restart 2 times" in (failed[0].error or "")
    wait_for(lambda: ledger.get(once.id).state == "done")
    assert agent.ran == ["cut off once"]
    runner.close()


def test_closing_daemon_puts_a_running_task_back_in_the_queue(ledger: BackgroundLedger) -> None:
    runner = BackgroundRunner(ledger, {"researcher": SteppedAgent()})
    runner.start()
    task = runner.submit("long research", "researcher", origin="chat")
    wait_for(lambda: ledger.get(task.id).state == "running")
    runner.close()
    back = ledger.get(task.id)
    assert back.state == "queued" and back.attempts == 0 and "closed while it ran" in (back.note or "")


def test_an_unknown_subagent_is_refused(ledger: BackgroundLedger) -> None:
    runner = BackgroundRunner(ledger, {"researcher": SteppedAgent()})
    with pytest.raises(UserInputError, match="no subagent 'poet'"):
        runner.submit("write a poem", "poet", origin="chat")


def test_a_run_whose_model_failed_is_a_failed_task_with_the_reason(ledger: BackgroundLedger) -> None:
    class Failing(SteppedAgent):
        async def run(
            self,
            task: str,
            *,
            cancel: asyncio.Event | None = None,
            progress: Callable[[RunEvent], None] | None = None,
        ) -> SubagentResult:
            return SubagentResult("the model service is unreachable", "error", Usage(), (), "sub-2", 0.0)

    runner = BackgroundRunner(ledger, {"researcher": Failing()})
    runner.start()
    task = runner.submit("anything", "researcher", origin="chat")
    wait_for(lambda: ledger.get(task.id).state == "failed")
    assert ledger.get(task.id).error == "the model service is unreachable"
    runner.close()
