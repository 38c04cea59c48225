"""One process per data directory: the `daemon.lock` file lock."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.errors import StorageError
from memory.lock import LOCK_NAME, DataDirLock


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


def test_unwritable_data_dir_is_a_storage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StorageError, match="cannot create the lock file"):
        DataDirLock(blocker / "data")
