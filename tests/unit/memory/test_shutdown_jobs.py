"""The session-end job framework: order, exactly-once across restarts, failures, timeouts, kill -9."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from core.errors import StorageError
from core.ports import TurnRecord
from memory.shutdown import JobTable, ShutdownProcessor, Step, StepContext, StepSkipped

ROOT = Path(__file__).resolve().parents[3]
SESSION = "s-1"
TURNS = (
    TurnRecord(turn_id="t1", session_id=SESSION, user="hi", assistant="hello", created_at=1.0, seq=1),
    TurnRecord(turn_id="t2", session_id=SESSION, user="bye", assistant="see you", created_at=2.0, seq=2),
)


class Sink:
    """What steps write: a call log (start/end per call) and an output table the steps upsert into."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS calls (n INTEGER PRIMARY KEY, step TEXT, phase TEXT)")
            db.execute("CREATE TABLE IF NOT EXISTS output (key TEXT PRIMARY KEY, value TEXT)")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous=FULL")
            yield db
        finally:
            db.close()

    def log(self, step: str, phase: str) -> None:
        with self._connect() as db:
            db.execute("INSERT INTO calls (step, phase) VALUES (?, ?)", (step, phase))

    def upsert(self, key: str, value: str) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT INTO output VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def calls(self, phase: str = "start") -> list[str]:
        with self._connect() as db:
            rows = db.execute("SELECT step FROM calls WHERE phase = ? ORDER BY n", (phase,)).fetchall()
        return [row[0] for row in rows]

    def outputs(self) -> list[str]:
        with self._connect() as db:
            return [row[0] for row in db.execute("SELECT key FROM output ORDER BY key")]


class SinkStep:
    """An idempotent fake step: logs the call, upserts one row keyed by (session, step), returns counts."""

    def __init__(
        self,
        name: str,
        sink: Sink,
        *,
        needs_llm: bool = False,
        fail_times: int = 0,
        sleep_s: float = 0.0,
        kill_midway: bool = False,
    ) -> None:
        self.name = name
        self.needs_llm = needs_llm
        self.sink = sink
        self.fail_times = fail_times
        self.sleep_s = sleep_s
        self.kill_midway = kill_midway
        self.seen: list[StepContext] = []

    async def run(self, ctx: StepContext) -> dict[str, Any]:
        self.seen.append(ctx)
        self.sink.log(self.name, "start")
        self.sink.upsert(f"{ctx.session_id}:{self.name}", f"turns={len(ctx.turns)}")
        if self.kill_midway:
            os.kill(os.getpid(), signal.SIGKILL)
        if self.sleep_s:
            await asyncio.sleep(self.sleep_s)
        if self.fail_times > 0:
            self.fail_times -= 1
            raise RuntimeError(f"{self.name} broke")
        self.sink.log(self.name, "end")
        return {"written": 1, "turns": len(ctx.turns)}


def five_steps(sink: Sink, **overrides: dict[str, Any]) -> list[SinkStep]:
    return [SinkStep(f"s{i}", sink, **overrides.get(f"s{i}", {})) for i in range(1, 6)]


@pytest.fixture
def sink(tmp_path: Path) -> Sink:
    return Sink(tmp_path / "sink.sqlite3")


@pytest.fixture
def jobs(tmp_path: Path) -> JobTable:
    return JobTable(tmp_path / "jobs.sqlite3")


def statuses(jobs: JobTable, session: str = SESSION) -> dict[str, str]:
    return {record.step: record.status for record in jobs.status(session)}


async def test_steps_run_in_order_once_and_a_second_run_does_nothing(jobs: JobTable, sink: Sink) -> None:
    processor = ShutdownProcessor(five_steps(sink), jobs)
    report = await processor.run(SESSION, TURNS, llm_available=True)
    assert sink.calls() == ["s1", "s2", "s3", "s4", "s5"]
    assert report.complete and all(o.ran and o.result == {"written": 1, "turns": 2} for o in report.steps)
    again = await processor.run(SESSION, TURNS, llm_available=True)
    assert sink.calls() == ["s1", "s2", "s3", "s4", "s5"]
    assert again.complete and not any(o.ran for o in again.steps)
    assert [o.result for o in again.steps] == [o.result for o in report.steps]


async def test_later_steps_see_earlier_results_read_only(jobs: JobTable, sink: Sink) -> None:
    steps = five_steps(sink)
    await ShutdownProcessor(steps, jobs).run(SESSION, TURNS, llm_available=True)
    ctx = steps[2].seen[0]
    assert set(ctx.results) == {"s1", "s2"} and ctx.results["s1"]["written"] == 1
    assert ctx.turns == TURNS and ctx.session_id == SESSION and ctx.attempt == 1
    with pytest.raises(TypeError):
        ctx.results["s1"]["written"] = 5  # type: ignore[index]  # writing to it is the point


async def test_a_failing_step_does_not_stop_later_steps_and_is_retried_next_run(
    jobs: JobTable, sink: Sink
) -> None:
    processor = ShutdownProcessor(five_steps(sink, s2={"fail_times": 1}), jobs)
    report = await processor.run(SESSION, TURNS, llm_available=True)
    assert report.failed == ("s2",) and not report.complete
    assert "RuntimeError: s2 broke" in (report.outcome("s2").error or "")
    assert sink.calls("end") == ["s1", "s3", "s4", "s5"]
    assert jobs.sessions_needing_work() == [SESSION]
    retry = await processor.run(SESSION, TURNS, llm_available=True)
    assert retry.complete and [o.name for o in retry.steps if o.ran] == ["s2"]
    assert retry.outcome("s2").attempts == 2
    assert sink.calls("end") == ["s1", "s3", "s4", "s5", "s2"]
    assert jobs.sessions_needing_work() == []


async def test_a_step_that_keeps_failing_is_given_up_after_max_attempts(jobs: JobTable, sink: Sink) -> None:
    processor = ShutdownProcessor(five_steps(sink, s4={"fail_times": 99}), jobs, max_attempts=2)
    for _ in range(4):
        report = await processor.run(SESSION, TURNS, llm_available=True)
    assert sink.calls().count("s4") == 2
    assert report.failed == ("s4",) and not report.outcome("s4").ran
    assert report.outcome("s4").attempts == 2
    assert jobs.sessions_needing_work() == [SESSION]  # not done…
    assert jobs.sessions_needing_work(max_attempts=2) == []  # …but nothing left to try


async def test_a_step_over_its_timeout_is_cut_off_and_recorded_failed(jobs: JobTable, sink: Sink) -> None:
    processor = ShutdownProcessor(five_steps(sink, s2={"sleep_s": 30}), jobs, step_timeout_s=0.2)
    started = time.monotonic()
    report = await processor.run(SESSION, TURNS, llm_available=True)
    assert time.monotonic() - started < 5
    assert report.failed == ("s2",) and report.outcome("s2").error == "timed out after 0.2 s"
    assert statuses(jobs)["s2"] == "failed" and sink.calls("end") == ["s1", "s3", "s4", "s5"]


async def test_per_step_timeouts_override_the_default(jobs: JobTable, sink: Sink) -> None:
    steps = five_steps(sink, s3={"sleep_s": 0.3})
    processor = ShutdownProcessor(steps, jobs, step_timeout_s=0.1, step_timeouts={"s3": 5.0})
    report = await processor.run(SESSION, TURNS, llm_available=True)
    assert report.complete and steps[2].seen[0].timeout_s == 5.0


async def test_a_needs_llm_step_offline_still_runs_and_is_marked_degraded(jobs: JobTable, sink: Sink) -> None:
    processor = ShutdownProcessor(five_steps(sink, s3={"needs_llm": True}), jobs)
    report = await processor.run(SESSION, TURNS, llm_available=False)
    assert report.complete and report.outcome("s3").result["degraded"] == "offline heuristics"
    assert "degraded" not in report.outcome("s2").result  # a step that needs no LLM is not degraded
    stored = {r.step: r.result for r in jobs.status(SESSION)}
    assert stored["s3"] == {"written": 1, "turns": 2, "degraded": "offline heuristics"}


async def test_a_needs_llm_step_online_is_not_marked_degraded(jobs: JobTable, sink: Sink) -> None:
    processor = ShutdownProcessor(five_steps(sink, s3={"needs_llm": True}), jobs)
    report = await processor.run(SESSION, TURNS, llm_available=True)
    assert "degraded" not in report.outcome("s3").result


async def test_a_step_can_skip_itself_and_is_not_run_again(jobs: JobTable) -> None:
    class NothingToDo:
        name, needs_llm, calls = "proposals", False, 0

        async def run(self, ctx: StepContext) -> dict[str, Any]:
            self.calls += 1
            raise StepSkipped("dev mode is off")

    step = NothingToDo()
    processor = ShutdownProcessor([step], jobs)
    report = await processor.run(SESSION, TURNS, llm_available=True)
    await processor.run(SESSION, TURNS, llm_available=True)
    assert report.complete and report.outcome("proposals").status == "skipped" and step.calls == 1
    assert report.outcome("proposals").result == {"reason": "dev mode is off"}


async def test_a_result_that_is_not_a_json_dict_fails_the_step_and_is_not_recorded_done(
    jobs: JobTable,
) -> None:
    class Bad:
        def __init__(self, name: str, value: Any) -> None:
            self.name, self.needs_llm, self.value = name, False, value

        async def run(self, ctx: StepContext) -> Any:
            return self.value

    processor = ShutdownProcessor([Bad("not_json", {"x": object()}), Bad("not_dict", [1])], jobs)
    report = await processor.run(SESSION, TURNS, llm_available=True)
    assert "not JSON" in (report.outcome("not_json").error or "")
    assert report.outcome("not_dict").error == "returned list, not a dict"
    assert statuses(jobs) == {"not_json": "failed", "not_dict": "failed"}
    assert all(r.result == {} for r in jobs.status(SESSION))


async def test_concurrent_runs_for_one_session_run_each_step_once(jobs: JobTable, sink: Sink) -> None:
    processor = ShutdownProcessor(five_steps(sink, s2={"sleep_s": 0.05}), jobs)
    first, second = await asyncio.gather(
        processor.run(SESSION, TURNS, llm_available=True), processor.run(SESSION, TURNS, llm_available=True)
    )
    assert sink.calls() == ["s1", "s2", "s3", "s4", "s5"]
    assert first.complete and second.complete
    assert sum(o.ran for o in first.steps + second.steps) == 5


async def test_sessions_are_tracked_separately(jobs: JobTable, sink: Sink) -> None:
    processor = ShutdownProcessor(five_steps(sink), jobs)
    await processor.run("a", TURNS, llm_available=True)
    await processor.run("b", TURNS[:1], llm_available=True)
    assert len(sink.calls()) == 10 and len(sink.outputs()) == 10
    assert {r.result["turns"] for r in jobs.status("b")} == {1}


def test_job_table_uses_wal_and_full_sync_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "jobs.sqlite3"
    table = JobTable(path)
    assert table._db.pragma("journal_mode") == "wal"
    assert table._db.pragma("synchronous") == 2  # FULL
    table.plan(SESSION, ["a", "b"])
    assert table.start(SESSION, "a") == 1
    table.finish(SESSION, "a", {"n": 3})
    table.close()
    reopened = JobTable(path)
    assert [(r.step, r.status, r.result) for r in reopened.status(SESSION)] == [
        ("a", "done", {"n": 3}),
        ("b", "pending", {}),
    ]


def test_job_table_refuses_unplanned_steps_and_non_terminal_finish(jobs: JobTable) -> None:
    with pytest.raises(StorageError):
        jobs.start(SESSION, "never-planned")
    jobs.plan(SESSION, ["a"])
    with pytest.raises(ValueError):
        jobs.finish(SESSION, "a", {}, status="running")


def test_processor_rejects_bad_configuration(jobs: JobTable, sink: Sink) -> None:
    assert isinstance(SinkStep("x", sink), Step)
    with pytest.raises(ValueError):
        ShutdownProcessor([SinkStep("x", sink), SinkStep("x", sink)], jobs)
    with pytest.raises(ValueError):
        ShutdownProcessor([SinkStep("x", sink)], jobs, step_timeout_s=0)
    with pytest.raises(ValueError):
        ShutdownProcessor([SinkStep("x", sink)], jobs, step_timeouts={"y": 1.0})


async def test_a_step_interrupted_on_its_last_attempt_is_given_up(jobs: JobTable, sink: Sink) -> None:
    jobs.plan(SESSION, ["s1", "s2", "s3", "s4", "s5"])
    for _ in range(2):
        jobs.start(SESSION, "s1")  # two crashes mid-step
    report = await ShutdownProcessor(five_steps(sink), jobs, max_attempts=2).run(
        SESSION, TURNS, llm_available=True
    )
    assert report.failed == ("s1",) and "interrupted 2 times" in (report.outcome("s1").error or "")
    assert sink.calls() == ["s2", "s3", "s4", "s5"]


async def test_resume_all_finishes_every_session_left_with_work(jobs: JobTable, sink: Sink) -> None:
    jobs.plan("crashed", ["s1", "s2", "s3", "s4", "s5"])
    jobs.start("crashed", "s1")
    processor = ShutdownProcessor(five_steps(sink, s5={"fail_times": 1}), jobs)
    await processor.run("flaky", TURNS, llm_available=True)
    await processor.run("clean", TURNS, llm_available=True)  # s5 no longer fails: nothing left
    loaded: list[str] = []

    async def load_turns(session_id: str) -> list[TurnRecord]:
        loaded.append(session_id)
        return list(TURNS)

    reports = await processor.resume_all(load_turns, llm_available=True)
    assert sorted(loaded) == ["crashed", "flaky"]
    assert all(report.complete for report in reports) and jobs.sessions_needing_work() == []


async def test_resume_all_leaves_a_session_whose_turns_cannot_be_loaded(jobs: JobTable, sink: Sink) -> None:
    jobs.plan("gone", ["s1"])

    def load_turns(session_id: str) -> list[TurnRecord]:
        raise StorageError("journal unreadable")

    processor = ShutdownProcessor([SinkStep("s1", sink)], jobs)
    assert await processor.resume_all(load_turns, llm_available=True) == []
    assert jobs.sessions_needing_work() == ["gone"]


async def test_no_step_starts_after_the_budget_and_the_next_start_runs_the_rest(
    jobs: JobTable, sink: Sink
) -> None:
    now = [100.0]
    steps = five_steps(sink)
    for step in steps[:2]:  # each of the first two steps takes 5 s of the processor's clock
        run = step.run

        async def slow(ctx: StepContext, run: Any = run) -> dict[str, Any]:
            now[0] += 5.0
            return await run(ctx)

        step.run = slow  # type: ignore[method-assign]
    processor = ShutdownProcessor(steps, jobs, clock=lambda: now[0])
    report = await processor.run(SESSION, TURNS, llm_available=True, stop_by=now[0] + 8.0)
    assert sink.calls() == ["s1", "s2"]  # s2 started within the budget and finished; s3 would start after it
    assert [o.status for o in report.steps] == ["done", "done", "pending", "pending", "pending"]
    assert not report.complete and jobs.sessions_needing_work() == [SESSION]
    [resumed] = await processor.resume_all(lambda _: list(TURNS), llm_available=True)
    assert resumed.complete and sink.calls() == ["s1", "s2", "s3", "s4", "s5"]  # each step once


async def test_a_session_reached_after_the_budget_is_still_planned_for_the_next_start(
    jobs: JobTable, sink: Sink
) -> None:
    processor = ShutdownProcessor(five_steps(sink), jobs, clock=lambda: 50.0)
    report = await processor.run("late", TURNS, llm_available=True, stop_by=10.0)
    assert sink.calls() == [] and not report.complete
    assert jobs.sessions_needing_work() == ["late"]
