"""Runs the session-end steps in order, once each, and survives crashes, timeouts and failing steps.

The contract for a step: it is idempotent (deterministic ids, upserts), so re-running it after a crash
mid-step cannot duplicate its output; it returns a small JSON dict (counts, notes); when `needs_llm` is set
and no LLM is available it still runs, degrading to heuristics. A step must await (or offload blocking work
with `asyncio.to_thread`) so that its timeout can cut it off.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import inspect
import json
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from core.errors import DaemonError
from core.ports import TurnRecord
from memory.shutdown.jobs import DONE, FAILED, FINISHED, RUNNING, SKIPPED, JobRecord, JobTable

logger = logging.getLogger(__name__)

DEGRADED_NOTE = "offline heuristics"
TurnLoader = Callable[[str], Sequence[TurnRecord] | Awaitable[Sequence[TurnRecord]]]


class StepSkipped(DaemonError):
    """Raised by a step that has nothing to do for this session (recorded `skipped`, never re-run)."""


@dataclass(frozen=True)
class StepContext:
    """What a step gets to see. Steps get their own dependencies (stores, LLM) through their constructors.

    `results` holds the results of the steps already done for this session (in this run or an earlier
    one), read-only. `deadline` is on `clock`'s scale; `time_left()` says how much of the budget remains.
    """

    session_id: str
    turns: tuple[TurnRecord, ...]
    llm_available: bool
    timeout_s: float
    deadline: float
    results: Mapping[str, Mapping[str, Any]]
    attempt: int = 1
    clock: Callable[[], float] = time.monotonic

    def time_left(self) -> float:
        """Seconds before the step is cut off (never negative)."""
        return max(0.0, self.deadline - self.clock())


@runtime_checkable
class Step(Protocol):
    """One session-end step. `name` is its key in the job table: renaming it re-runs it for old sessions."""

    name: str
    needs_llm: bool

    async def run(self, ctx: StepContext) -> dict[str, Any]: ...


@dataclass(frozen=True)
class StepOutcome:
    """One step in a report. `ran` is False when the step was done earlier or has used up its attempts."""

    name: str
    status: str
    seconds: float
    result: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    attempts: int = 0
    ran: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "seconds": round(self.seconds, 3),
            "result": self.result,
            "error": self.error,
            "attempts": self.attempts,
            "ran": self.ran,
        }


@dataclass(frozen=True)
class ShutdownReport:
    """The state of every step of one session after a run."""

    session_id: str
    steps: tuple[StepOutcome, ...]

    @property
    def complete(self) -> bool:
        """True when every step is done or skipped (nothing left for a later run)."""
        return all(step.status in FINISHED for step in self.steps)

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(step.name for step in self.steps if step.status == FAILED)

    def outcome(self, name: str) -> StepOutcome:
        for step in self.steps:
            if step.name == name:
                return step
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "complete": self.complete,
            "steps": [step.to_dict() for step in self.steps],
        }


class ShutdownProcessor:
    """Runs `steps` in order for a session, recording each outcome in `jobs` as soon as it is known.

    A step already done for the session is not run again (exactly once across restarts); a failed or
    timed-out step is retried on the next run until it has used `max_attempts`, then left failed; a
    step found `running` was interrupted by a crash and runs again (that crash counted as an attempt,
    so a step that keeps killing the process is eventually given up on too).
    """

    def __init__(
        self,
        steps: Sequence[Step],
        jobs: JobTable,
        *,
        step_timeout_s: float = 120.0,
        step_timeouts: Mapping[str, float] | None = None,
        max_attempts: int = 3,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        names = [step.name for step in steps]
        if len(set(names)) != len(names) or not all(names):
            raise ValueError(f"step names must be unique and non-empty: {names}")
        timeouts = dict(step_timeouts or {})
        if step_timeout_s <= 0 or any(t <= 0 for t in timeouts.values()):
            raise ValueError("step timeouts must be positive")
        if unknown := set(timeouts) - set(names):
            raise ValueError(f"timeouts for unknown steps: {sorted(unknown)}")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self._steps = tuple(steps)
        self._jobs = jobs
        self._default_timeout = step_timeout_s
        self._timeouts = timeouts
        self._max_attempts = max_attempts
        self._clock = clock
        # Locks live only while someone holds or awaits them, so the map does not grow with every session
        # and no lock outlives the event loop it was used on.
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def now(self) -> float:
        """The processor's clock (what `stop_by` is measured on)."""
        return self._clock()

    @property
    def step_names(self) -> tuple[str, ...]:
        return tuple(step.name for step in self._steps)

    def _lock_for(self, session_id: str) -> asyncio.Lock:
        lock = self._locks.get(session_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[session_id] = lock
        return lock

    async def run(
        self,
        session_id: str,
        turns: Sequence[TurnRecord],
        *,
        llm_available: bool,
        run_key: str | None = None,
        stop_by: float | None = None,
    ) -> ShutdownReport:
        """Run every step of the session that still needs to run; return the state of all of them.

        Jobs are recorded under `run_key` (default: the session id): a caller that wants a session
        processed again once it has grown passes a key that names its size. Concurrent calls for one
        key are serialised, so the second finds the work done. No step starts once the clock passes
        `stop_by`: the steps not reached stay planned (`pending`) for `resume_all`.
        """
        key = run_key or session_id
        lock = self._lock_for(key)
        async with lock:
            self._jobs.plan(key, self.step_names)
            records = {record.step: record for record in self._jobs.status(key)}
            results = {name: r.result for name, r in records.items() if r.status in FINISHED}
            frozen_turns = tuple(turns)
            outcomes: list[StepOutcome] = []
            for step in self._steps:
                if stop_by is not None and self._clock() >= stop_by:
                    outcomes.append(_from_record(records[step.name]))  # left for the next start
                    continue
                outcome = await self._advance(
                    step, records[step.name], _Run(key, session_id, frozen_turns, llm_available), results
                )
                if outcome.status in FINISHED:
                    results[step.name] = outcome.result
                outcomes.append(outcome)
        return ShutdownReport(key, tuple(outcomes))

    async def _advance(
        self, step: Step, record: JobRecord, run: _Run, results: Mapping[str, dict[str, Any]]
    ) -> StepOutcome:
        """Run the step if its record says it should run; otherwise report the record as it stands."""
        if record.status in FINISHED:
            return _from_record(record)
        if record.attempts >= self._max_attempts:
            if record.status == RUNNING:  # the last allowed attempt died with the process
                error = f"interrupted {record.attempts} times (the process stopped mid-step); giving up"
                self._jobs.fail(run.key, step.name, error)
                record = dataclasses.replace(record, status=FAILED, error=error)
            return _from_record(record)
        if record.status == RUNNING:
            logger.warning("session-end step %s of %s was interrupted; re-running it", step.name, run.key)
        return await self._run_step(step, run, results)

    async def _run_step(self, step: Step, run: _Run, results: Mapping[str, dict[str, Any]]) -> StepOutcome:
        """One attempt: mark running, run under the timeout, record done/skipped/failed. Never raises
        for a step's own failure; cancellation of the whole run propagates (the row stays `running`)."""
        timeout = self._timeouts.get(step.name, self._default_timeout)
        attempt = self._jobs.start(run.key, step.name)
        started = self._clock()
        ctx = StepContext(
            session_id=run.session_id,
            turns=run.turns,
            llm_available=run.llm_available,
            timeout_s=timeout,
            deadline=started + timeout,
            results=_read_only(results),
            attempt=attempt,
            clock=self._clock,
        )
        status, result, error = await self._call(step, ctx, timeout)
        seconds = self._clock() - started
        if status == FAILED:
            logger.warning("session-end step %s of %s failed: %s", step.name, run.key, error)
            self._jobs.fail(run.key, step.name, error or "failed")
        else:
            self._jobs.finish(run.key, step.name, result, status=status)
        return StepOutcome(step.name, status, seconds, result, error, attempt, ran=True)

    async def _call(
        self, step: Step, ctx: StepContext, timeout: float
    ) -> tuple[str, dict[str, Any], str | None]:
        """(status, result, error) of one call of `step.run`, with the result checked and annotated."""
        started = self._clock()
        try:
            raw = await asyncio.wait_for(step.run(ctx), timeout)
        except StepSkipped as skipped:
            return SKIPPED, _annotate(step, ctx, {"reason": str(skipped)}), None
        except TimeoutError as error:
            if self._clock() - started >= timeout * 0.999:  # ours, not a timeout raised inside the step
                return FAILED, {}, f"timed out after {timeout:g} s"
            return FAILED, {}, _describe(error)
        except Exception as error:  # one step's bug must never stop the others
            logger.debug("session-end step %s raised", step.name, exc_info=True)
            return FAILED, {}, _describe(error)
        if not isinstance(raw, dict):
            return FAILED, {}, f"returned {type(raw).__name__}, not a dict"
        try:
            result = json.loads(json.dumps(raw))  # exactly what the table will give back on a resume
        except (TypeError, ValueError) as error:
            return FAILED, {}, f"returned a result that is not JSON: {error}"
        return DONE, _annotate(step, ctx, result), None

    async def resume_all(self, load_turns: TurnLoader, *, llm_available: bool) -> list[ShutdownReport]:
        """At start-up: finish every session a crash or a failure left with work, one session at a time.

        `load_turns(session_id)` (sync or async) supplies the session's turns. A session whose turns
        cannot be loaded is logged and left for the next start-up.
        """
        sessions = self._jobs.sessions_needing_work(max_attempts=self._max_attempts, steps=self.step_names)
        reports: list[ShutdownReport] = []
        for session_id in sessions:
            try:
                loaded = load_turns(session_id)
                turns = await loaded if inspect.isawaitable(loaded) else loaded
            except Exception:
                logger.exception("cannot load the turns of session %s; session-end work waits", session_id)
                continue
            # The job key may name more than the session (see `run`); the turns say which session it is.
            real_id = turns[0].session_id if turns else session_id
            reports.append(await self.run(real_id, turns, llm_available=llm_available, run_key=session_id))
        return reports


@dataclass(frozen=True)
class _Run:
    """One processing run: the job key, the session it is about, its turns, whether a model is there."""

    key: str
    session_id: str
    turns: tuple[TurnRecord, ...]
    llm_available: bool


def _annotate(step: Step, ctx: StepContext, result: dict[str, Any]) -> dict[str, Any]:
    """Mark a result produced without the LLM it wanted, so later readers know it is heuristic."""
    if step.needs_llm and not ctx.llm_available:
        return {**result, "degraded": DEGRADED_NOTE}
    return result


def _describe(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _read_only(results: Mapping[str, dict[str, Any]]) -> Mapping[str, Mapping[str, Any]]:
    """A deep copy behind read-only views: a step cannot change what later steps (or the table) see."""
    return MappingProxyType({name: MappingProxyType(copy.deepcopy(r)) for name, r in results.items()})


def _from_record(record: JobRecord) -> StepOutcome:
    return StepOutcome(
        name=record.step,
        status=record.status,
        seconds=0.0,
        result=record.result,
        error=record.error,
        attempts=record.attempts,
        ran=False,
    )
