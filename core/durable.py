"""Durable file replacement for JSON side files (schema versions, the knowledge graph, ...)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


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


def _fsync_dir(directory: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
