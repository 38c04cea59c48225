"""One process per data directory: the `daemon.lock` file lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import StorageError
from memory.lock import LOCK_NAME, DataDirLock, pid_alive

ROOT = Path(__file__).resolve().parents[3]
HOLDER = """
import sys, time
from memory.lock import DataDirLock
lock = DataDirLock(sys.argv[1])
print("locked", flush=True)
time.sleep(60)
"""


def test_lock_writes_our_pid(tmp_path: Path) -> None:
    with DataDirLock(tmp_path / "data") as lock:
        assert lock.held
        assert (tmp_path / "data" / LOCK_NAME).read_text().strip() == str(os.getpid())


def test_second_lock_in_the_same_process_fails_naming_pid_and_path(tmp_path: Path) -> None:
    first = DataDirLock(tmp_path)
    try:
        with pytest.raises(StorageError) as caught:
            DataDirLock(tmp_path)
        message = str(caught.value)
        assert f"pid {os.getpid()}" in message
        assert str(tmp_path / LOCK_NAME) in message
        assert "--data-dir" in message
        assert first.held
    finally:
        first.close()


def test_lock_is_released_on_close_and_the_file_kept(tmp_path: Path) -> None:
    lock = DataDirLock(tmp_path)
    lock.close()
    lock.close()  # idempotent
    assert not lock.held and (tmp_path / LOCK_NAME).exists()
    with DataDirLock(tmp_path) as again:
        assert again.held
    lock.acquire()  # the same object can take it again
    assert lock.held
    lock.close()


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


def test_unwritable_data_dir_is_a_storage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StorageError, match="cannot create the lock file"):
        DataDirLock(blocker / "data")
