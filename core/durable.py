"""Durable files: atomic replacement of JSON side files, and moving a damaged file aside for recovery."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

from core.errors import StorageError


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data`: temp file in the same directory, fsync, rename, fsync the directory.

    A crash leaves either the old file or the new one, never a mix; a short write (full disk) fails before
    the rename, so a good file is never replaced by a truncated one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            view = memoryview(data)
            while view:
                written = handle.write(view)
                if not written:
                    raise OSError(f"short write to {temp}")
                view = view[written:]
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_dir(path.parent)


def move_aside(path: Path, when: float | None = None) -> Path:
    """Move a damaged file (and a database's -wal/-shm files) to `<name>.corrupt-<timestamp>`, stamped with
    `when` (epoch seconds; now by default): never deleted, never overwritten, so the user can still recover
    it. Returns where the main file went; StorageError when it cannot be moved."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    counter = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
        counter += 1
    try:
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                os.replace(side, target.with_name(target.name + suffix))
        if path.exists():
            os.replace(path, target)
    except OSError as error:
        raise StorageError(f"cannot move the damaged file {path} aside: {error}") from None
    return target


def _fsync_dir(directory: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
