"""One process owns a data directory: an exclusive lock on `<data_dir>/daemon.lock` holding its pid.

Chroma is not process-safe for writers sharing a directory (two openers have corrupted HNSW indexes in the
field), and the journal and side files assume one writer. The lock is an OS file lock (`flock` on POSIX,
`msvcrt.locking` on Windows), so the kernel releases it when the owner dies, even by `kill -9`: a lock file
left by a dead process is simply taken over. The file is never deleted (deleting lock files races).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from types import TracebackType

from core.errors import StorageError

LOCK_NAME = "daemon.lock"


class DataDirLock:
    """Exclusive ownership of a data directory for the life of this object (or until `close`).

    >>> with DataDirLock(data_dir):          # raises StorageError if another process holds it
    ...     run_daemon()
    """

    def __init__(self, data_dir: Path | str) -> None:
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / LOCK_NAME
        self._fd: int | None = None
        self.acquire()

    @property
    def held(self) -> bool:
        """True while this object owns the lock."""
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock (no-op if already held); raise `StorageError` naming the owner's pid otherwise."""
        if self._fd is not None:
            return
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise StorageError(f"cannot create the lock file {self.path}: {error}") from None
        if not _try_lock(fd):
            os.close(fd)
            raise StorageError(self._busy_message(_read_pid(self.path)))
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            os.fsync(fd)
        except OSError as error:
            _unlock(fd)
            os.close(fd)
            raise StorageError(f"cannot write the lock file {self.path}: {error}") from None
        self._fd = fd

    def _busy_message(self, pid: int | None) -> str:
        owner = f"pid {pid}" if pid is not None else "an unknown process"
        if pid is not None and pid == os.getpid():
            owner += " (this process)"
        elif pid is not None and not pid_alive(pid):
            owner += " (no longer running; a child process it started may still hold the lock)"
        return (
            f"the data directory {self.data_dir} is in use by another Daemon instance ({owner}); "
            f"lock file: {self.path}. Close that instance, or start this one with a different --data-dir."
        )

    def close(self) -> None:
        """Release the lock. The file stays (emptied), so the next owner just locks it again."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        _unlock(fd)
        os.close(fd)

    def __enter__(self) -> DataDirLock:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __del__(self) -> None:
        # A forgotten close must not keep the directory locked for the rest of the process.
        with contextlib.suppress(Exception):
            self.close()


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        # flock (not lockf): two opens in one process conflict too, so a second store in-process is refused.
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(fd: int) -> None:
    with contextlib.suppress(OSError):
        if sys.platform == "win32":
            import msvcrt

            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_UN)


def _read_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (POSIX: signal 0; elsewhere assume it does)."""
    if sys.platform == "win32":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
