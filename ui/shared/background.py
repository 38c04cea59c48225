"""Background tasks running while a front end serves: at most `max_running` at once, each a subagent run
with its budget, its progress written to the ledger as it goes, cancellable from any front end or a shell.

They run on one event loop in a thread of their own, so the chat keeps answering. When a task ends,
`on_done` gets it (the composition root stores the result in memory and announces it in every open front
end). A task cut off by a crash or a closed Daemon is resumed at the next start (memory/background.py).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import Future
from typing import Any, Protocol

from core.agent.subagent import SubagentResult
from core.errors import UserInputError
from core.events import Progress, RunEvent, ToolCallStarted, UsageUpdate
from core.schedule.tasks import Firing
from memory.background import BackgroundLedger, BackgroundTask, TaskState
from memory.tasks import TaskStore

logger = logging.getLogger(__name__)
CANCEL_CHECK_S = 0.5


class AgentRun(Protocol):
    """What runs a task (a `core.agent.subagent.Subagent`)."""

    @property
    def budget(self) -> str:
        """The budget in words, for the proposal the user approves."""
        ...

    async def run(
        self,
        task: str,
        *,
        cancel: asyncio.Event | None = None,
        progress: Callable[[RunEvent], None] | None = None,
    ) -> SubagentResult: ...


OnDone = Callable[[BackgroundTask, SubagentResult | None], Coroutine[Any, Any, None]]


class BackgroundRunner:
    """Runs the ledger's queued tasks with the named agents."""

    def __init__(
        self,
        ledger: BackgroundLedger,
        agents: Mapping[str, AgentRun],
        *,
        jobs: Mapping[str, AgentRun] | None = None,
        max_running: int = 2,
        on_done: OnDone | None = None,
        cancel_check_s: float = CANCEL_CHECK_S,
    ) -> None:
        """`agents` are the subagents a person's task may go to; `jobs` are Daemon's own work run the same
        way (a synthesis run), by name only, never a default for what someone typed."""
        self.ledger = ledger
        self.agents = dict(agents)
        self.jobs = dict(jobs or {})
        self._max = max_running
        self._on_done = on_done
        self._check_s = cancel_check_s
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="background-tasks", daemon=True)
        self._running: dict[str, asyncio.Task[None]] = {}
        self._cancels: dict[str, asyncio.Event] = {}
        self._started = False

    def start(self) -> tuple[list[BackgroundTask], list[BackgroundTask]]:
        """Recover the tasks a dead process left running (resumed or failed), then run the queue."""
        resumed, failed = self.ledger.recover()
        self._thread.start()
        self._started = True
        if self._on_done is not None:  # a task given up on is said, like one that ended
            for task in failed:
                asyncio.run_coroutine_threadsafe(self._on_done(task, None), self._loop)
        self._wake()
        return resumed, failed

    def submit(self, prompt: str, agent: str, *, origin: str, title: str = "") -> BackgroundTask:
        """Queue a task for `agent`; it starts as soon as fewer than `max_running` run."""
        self._agent(agent)
        task = self.ledger.create(prompt, agent, origin=origin, title=title)
        self._wake()
        return task

    def cancel(self, task_id: str) -> BackgroundTask:
        """Stop a task: queued ones at once, a running one at its next step (its work so far is kept)."""
        task = self.ledger.request_cancel(task_id)
        if (event := self._cancels.get(task.id)) is not None:
            self._loop.call_soon_threadsafe(event.set)
        return task

    def _wake(self) -> Future[None] | None:
        if not self._started:
            return None
        return asyncio.run_coroutine_threadsafe(self._fill(), self._loop)

    async def _fill(self) -> None:
        """Start queued tasks while there is room."""
        for task in self.ledger.queued():
            if len(self._running) >= self._max:
                return
            if task.id not in self._running and self.ledger.start(task.id):
                self._running[task.id] = asyncio.create_task(self._run(self.ledger.get(task.id)))

    async def _run(self, task: BackgroundTask) -> None:
        cancel = asyncio.Event()
        self._cancels[task.id] = cancel
        watch = asyncio.create_task(self._watch_cancel(task.id, cancel))
        counts: dict[str, Any] = {"rounds": 0, "tool_calls": 0, "tokens": 0, "last": "started"}
        result: SubagentResult | None = None
        try:
            agent = self.agents.get(task.agent) or self.jobs.get(task.agent)
            if agent is None:
                raise UserInputError(f"no subagent {task.agent!r} any more")
            result = await agent.run(
                task.prompt, cancel=cancel, progress=lambda e: self._progress(task, counts, e)
            )
            if result.exit_reason == "error":  # the model failed: the task failed, with its reason
                ended = self.ledger.finish(task.id, "failed", error=result.answer, trace_id=result.trace_id)
            else:
                state: TaskState = "cancelled" if self.ledger.cancel_requested(task.id) else "done"
                ended = self.ledger.finish(task.id, state, result=result.answer, trace_id=result.trace_id)
        except asyncio.CancelledError:  # Daemon is closing: resumed at the next start
            self.ledger.requeue(task.id, "resumed: Daemon was closed while it ran")
            raise
        except Exception as error:  # noqa: BLE001 - a failed task is recorded with its reason, never lost
            logger.exception("background task %s failed", task.id)
            ended = self.ledger.finish(task.id, "failed", error=str(error) or type(error).__name__)
        finally:
            watch.cancel()
            self._cancels.pop(task.id, None)
            self._running.pop(task.id, None)
        if self._on_done is not None:
            try:
                await self._on_done(ended, result)
            except Exception:  # noqa: BLE001 - the task's own record is written; only the follow-up failed
                logger.exception("storing the result of background task %s failed", task.id)
        await self._fill()

    def _progress(self, task: BackgroundTask, counts: dict[str, Any], event: RunEvent) -> None:
        if isinstance(event, UsageUpdate):
            counts["rounds"] += 1
            counts["tokens"] = event.total.total_tokens
            counts["last"] = f"model call {counts['rounds']}"
        elif isinstance(event, ToolCallStarted):
            counts["tool_calls"] += 1
            counts["last"] = f"using {event.call.name}"
        elif isinstance(event, Progress):  # a job's own status line
            counts["last"] = event.detail or event.stage
        else:
            return
        self.ledger.report(task.id, counts)

    async def _watch_cancel(self, task_id: str, cancel: asyncio.Event) -> None:
        """A cancel asked from another process (a shell's `task cancel`) is a flag in the ledger."""
        while not cancel.is_set():
            await asyncio.sleep(self._check_s)
            if await asyncio.to_thread(self.ledger.cancel_requested, task_id):
                cancel.set()

    def tasks(self) -> list[BackgroundTask]:
        """The ledger's tasks, newest first."""
        return self.ledger.tasks()

    def budget_of(self, agent: str) -> str:
        """A subagent's budget in words ("up to 8 rounds, 600 s, $0.50"); UserInputError if unknown."""
        return self._agent(agent).budget

    def _agent(self, name: str) -> AgentRun:
        """The subagent called `name`; UserInputError naming the ones there are."""
        found = self.agents.get(name) or self.jobs.get(name)
        if found is None:
            known = ", ".join(sorted(self.agents)) or "none configured"
            raise UserInputError(f"no subagent {name!r} (subagents: {known})")
        return found

    def when_done(self, on_done: OnDone) -> None:
        """What happens with each ended task (set by the composition root once the orchestrator exists)."""
        self._on_done = on_done

    def close(self) -> None:
        """Stop: tasks under way go back to the queue (resumed at the next start), the loop ends."""
        if not self._started:
            return

        async def stop() -> None:
            tasks = list(self._running.values())
            for running in tasks:
                running.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()


def task_detail(task: BackgroundTask) -> str:
    """Progress while it runs, the start of the result or the reason once it ended."""
    if task.state == "running":
        p = task.progress
        return f"{p.get('rounds', 0)} model calls, {p.get('tool_calls', 0)} tool calls, {p.get('last', '')}"
    if task.state == "done":
        return " ".join((task.result or "").split())[:100]
    return task.error or task.note or ""


def scheduled_runs(runner: BackgroundRunner | None, book: TaskStore) -> Callable[[list[Firing]], None]:
    """What to do with the slots this process fired: a scheduled task ("every Monday at 8, summarise my
    week") starts as a background task of the first subagent; without one, the book announces that."""

    def act(firings: list[Firing]) -> None:
        for firing in firings:
            if firing.kind != "agent":
                continue
            if runner is None or not runner.agents:
                book.announce(
                    f"Scheduled task not run (it needs a connected model): {firing.text}", origin="daemon"
                )
                continue
            agent = next(iter(runner.agents))
            runner.submit(firing.text, agent, origin="schedule", title=f"Scheduled: {firing.text[:70]}")

    return act
