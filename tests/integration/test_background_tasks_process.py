"""A background task survives `kill -9`: the process running it dies mid-task, the ledger still says
running, and the next Daemon start resumes it (here answered by the echo model) or, after a second cut,
fails it with the reason. Nothing is silently lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory.background import BACKGROUND_FILE, BackgroundLedger
from tests.integration.data_cli import ROOT, main

QUIET = "tasks:\n  os_notifications: false\n"
# A process that runs one background task with an agent that never finishes, and says when it runs.
RUNNER = """
import asyncio, sys, time
from pathlib import Path
from core.agent.subagent import SubagentResult
from memory.background import BackgroundLedger
from ui.shared.background import BackgroundRunner

class Slow:
    budget = "forever"
    async def run(self, task, *, cancel=None, progress=None):
        while True:
            await asyncio.sleep(0.05)

ledger = BackgroundLedger(Path(sys.argv[1]))
runner = BackgroundRunner(ledger, {"researcher": Slow()})
existing = ledger.queued()  # read before the runner starts it (then it is no longer queued)
runner.start()
task = existing[0] if existing else runner.submit("what did I read in May?", "researcher", origin="chat")
while ledger.get(task.id).state != "running":
    time.sleep(0.02)
print(task.id, flush=True)
time.sleep(600)
"""

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _run_and_kill(data: Path) -> str:
    child = subprocess.Popen(
        [sys.executable, "-c", RUNNER, str(data / BACKGROUND_FILE)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert child.stdout is not None
    task_id = child.stdout.readline().strip()
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert task_id.startswith("bg_"), task_id
    return task_id


def _daemon(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return main(tmp_path, tmp_path / "data", *args, stdin=stdin, config_extra=QUIET)


def _state(tmp_path: Path, task_id: str) -> dict[str, object]:
    listed = json.loads(_daemon(tmp_path, "task", "list", "--json").stdout)["background"]
    return next(t for t in listed if t["id"] == task_id)


def test_a_task_killed_mid_run_is_resumed_at_the_next_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    task_id = _run_and_kill(data)
    assert _state(tmp_path, task_id)["state"] == "running"  # as the dead process left it
    chat = _daemon(tmp_path, "cli", stdin="/quit\n")  # a Daemon starts: it resumes the task
    assert chat.returncode == 0, chat.stderr
    deadline = time.monotonic() + 60
    state = _state(tmp_path, task_id)
    while state["state"] not in ("done", "queued") and time.monotonic() < deadline:
        time.sleep(0.5)
        state = _state(tmp_path, task_id)
    # answered (echo) after the restart resumed it, or (on a busy machine) put back when that chat closed
    assert (state["state"], state["note"]) in (
        ("done", "resumed after Daemon stopped while it ran"),
        ("queued", "resumed: Daemon was closed while it ran"),
    )


def test_a_task_cut_off_twice_is_failed_with_the_reason(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    task_id = _run_and_kill(data)
    BackgroundLedger(data / BACKGROUND_FILE).recover()  # the first restart queued it again
    assert _run_and_kill(data) == task_id  # and the process running it died again
    chat = _daemon(tmp_path, "cli", stdin="/quit\n")
    assert chat.returncode == 0, chat.stderr
    state = _state(tmp_path, task_id)
    assert state["state"] == "failed" and "stopped by a restart 2 times" in str(state["error"])
