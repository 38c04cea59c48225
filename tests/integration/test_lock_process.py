"""The data directory's lock against real processes: a dead or killed holder's lock is taken over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import StorageError
from memory.lock import LOCK_NAME, DataDirLock, pid_alive

ROOT = Path(__file__).resolve().parents[2]
HOLDER = """
import sys, time
from memory.lock import DataDirLock
lock = DataDirLock(sys.argv[1])
print("locked", flush=True)
time.sleep(60)
"""


def test_stale_lock_of_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    pid = int(dead.stdout)
    assert not pid_alive(pid)
    (tmp_path / LOCK_NAME).write_text(f"{pid}\n")
    with DataDirLock(tmp_path):
        assert (tmp_path / LOCK_NAME).read_text().strip() == str(os.getpid())


def test_lock_of_a_killed_process_is_taken_over(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(StorageError, match=f"in use by another Daemon instance \\(pid {holder.pid}\\)"):
            DataDirLock(tmp_path)
        os.kill(holder.pid, signal.SIGKILL)  # no cleanup runs: the kernel drops the lock
        holder.wait(timeout=10)
        with DataDirLock(tmp_path):
            assert (tmp_path / LOCK_NAME).read_text().strip() == str(os.getpid())
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(timeout=10)
