"""Session-end jobs as a real process meets them: SIGKILL mid-step resumes at that step and runs the rest
once."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

from memory.shutdown import JobTable, ShutdownProcessor
from tests.unit.memory.test_shutdown_jobs import SESSION, TURNS, Sink, five_steps, statuses

ROOT = Path(__file__).resolve().parents[2]
UNIT_TESTS = ROOT / "tests" / "unit" / "memory"  # where the crash script finds the sink
CRASH_SCRIPT = """
import asyncio, sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
from test_shutdown_jobs import TURNS, Sink, five_steps
from memory.shutdown import JobTable, ShutdownProcessor

steps = five_steps(Sink(Path(sys.argv[2])), s3={"kill_midway": True})
processor = ShutdownProcessor(steps, JobTable(Path(sys.argv[1])))
asyncio.run(processor.run("s-1", TURNS, llm_available=True))
"""


async def test_kill_9_mid_step_resumes_at_that_step_and_runs_the_rest_exactly_once(
    tmp_path: Path,
) -> None:
    sink = Sink(tmp_path / "sink.sqlite3")
    jobs_path = tmp_path / "jobs.sqlite3"
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH_SCRIPT, str(jobs_path), str(sink.path), str(UNIT_TESTS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr
    jobs = JobTable(jobs_path)
    assert statuses(jobs) == {"s1": "done", "s2": "done", "s3": "running", "s4": "pending", "s5": "pending"}
    assert jobs.sessions_needing_work() == [SESSION]

    report = await ShutdownProcessor(five_steps(sink), jobs).run(SESSION, TURNS, llm_available=True)
    assert report.complete and [o.name for o in report.steps if o.ran] == ["s3", "s4", "s5"]
    assert report.outcome("s3").attempts == 2
    assert Counter(sink.calls()) == {"s1": 1, "s2": 1, "s3": 2, "s4": 1, "s5": 1}  # s3 started twice…
    assert sorted(sink.calls("end")) == ["s1", "s2", "s3", "s4", "s5"]  # …and every step finished once
    assert sink.outputs() == [f"{SESSION}:s{i}" for i in range(1, 6)]  # the re-run upserted, no duplicate
    assert jobs.sessions_needing_work() == []
