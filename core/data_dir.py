"""The data directory is private: the directory 0700, what is in it 0600 (folders 0700), whatever the umask.

`prepare_data_dir` makes sure the path can be the data directory (a clear `ConfigError` when it names a
file, lies under a file or cannot be created) and tightens what an older version or another umask left
readable. Files created later stay private because app/entry.py sets the process umask to `PRIVATE_UMASK`,
which covers every writer in the process (SQLite's WAL files, Chroma, the log). `loose_modes` lists what is
still readable by others (`doctor` warns about it).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from core.errors import ConfigError

PRIVATE_UMASK = 0o077
DIR_MODE = 0o700
FILE_MODE = 0o600
_OPEN_BITS = stat.S_IRWXG | stat.S_IRWXO


def prepare_data_dir(path: Path) -> None:
    """Create `path` (0700) if needed and make it and its contents private. Raises `ConfigError`."""
    try:
        path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    except FileExistsError:
        raise ConfigError(
            f"the data directory {path} is a file, not a directory; choose another path "
            "with --data-dir or DAEMON_DATA_DIR"
        ) from None
    except OSError as error:
        raise ConfigError(_cannot_create(path, error)) from None
    if not path.is_dir():
        raise ConfigError(f"the data directory {path} is not a directory")
    tighten(path)


def _cannot_create(path: Path, error: OSError) -> str:
    reason = error.strerror or str(error)
    if error.errno == errno.ENOTDIR:
        reason = "a part of that path is a file"
    elif error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        reason = f"{reason}; choose a writable place with --data-dir or DAEMON_DATA_DIR"
    return f"cannot create the data directory {path}: {reason}"


def tighten(path: Path) -> None:
    """Remove group and other permissions from `path` and everything under it (best effort: on a
    read-only file system or someone else's files nothing changes, and `loose_modes` still reports it)."""
    for item in _tree(path):
        with contextlib.suppress(OSError):
            mode = item.lstat().st_mode
            if stat.S_ISLNK(mode) or not mode & _OPEN_BITS:
                continue
            os.chmod(item, stat.S_IMODE(mode) & ~_OPEN_BITS)


def loose_modes(path: Path) -> list[Path]:
    """`path` and the files and folders under it that group or others may read, write or enter."""
    loose = []
    for item in _tree(path):
        with contextlib.suppress(OSError):
            mode = item.lstat().st_mode
            if not stat.S_ISLNK(mode) and mode & _OPEN_BITS:
                loose.append(item)
    return loose


def _tree(path: Path) -> list[Path]:
    if os.name != "posix" or not path.is_dir():  # other systems have no group and other mode bits
        return []
    items = [path]
    for folder, dirs, files in os.walk(path, onerror=None, followlinks=False):
        items.extend(Path(folder, name) for name in (*dirs, *files))
    return items


def write_private(path: Path, text: str) -> None:
    """Replace `path` with `text` atomically; the new file is 0600 from the moment it exists."""
    import tempfile

    # mkstemp: a fresh name (two writers never share one) created 0600 with O_EXCL, in the same folder so
    # the replace is atomic
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(name)
    try:
        os.fchmod(fd, FILE_MODE)  # the mode given to open is reduced by the umask, never widened: make sure
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            fd = -1
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    finally:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def default_data_dir(platform: str | None = None) -> Path:
    """The per-user data folder of the platform (platformdirs): ~/.local/share/daemon (or under
    $XDG_DATA_HOME) on Linux, ~/Library/Application Support/Daemon on macOS, %LOCALAPPDATA%\\Daemon on
    Windows. Outside the program's own folder, so memory survives deleting, re-cloning or upgrading it."""
    import sys

    from platformdirs.macos import MacOS
    from platformdirs.unix import Unix
    from platformdirs.windows import Windows

    platform = platform or sys.platform
    kind, name = {"win32": (Windows, "Daemon"), "darwin": (MacOS, "Daemon")}.get(platform, (Unix, "daemon"))
    return Path(kind(appname=name, appauthor=False, roaming=False).user_data_dir)


def adopt_legacy_data(legacy: Path, target: Path, in_use: Callable[[Path], bool]) -> str | None:
    """Data an older version kept in the project folder (`./data/user`), brought to `target`, the per-user
    folder: moved when `target` holds no memory yet and no process uses `legacy` (`in_use`), else left
    where it is and named, never silently abandoned. The message for the user, or None."""
    import shutil

    journal = "journal.sqlite3"
    if not (legacy / journal).is_file() or legacy.resolve() == target.resolve():
        return None
    if (target / journal).exists():
        return (
            f"note: older Daemon data is still in {legacy}; yours is in {target}. To bring it in: "
            f"`python main.py --data-dir {legacy} export old.zip`, then `python main.py import old.zip`"
        )
    if in_use(legacy):
        return f"note: {legacy} holds Daemon data but is in use; it moves to {target} when it is not"
    target.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    for item in sorted(legacy.iterdir()):  # into the folder a start may already have made (a lock, a log)
        if not (target / item.name).exists():
            shutil.move(str(item), str(target / item.name))
    with contextlib.suppress(OSError):
        for leftover in legacy.iterdir():  # only what the new folder had already (its own lock or log)
            if leftover.is_file() and leftover.name in ("daemon.lock", "daemon.log"):
                leftover.unlink()
        legacy.rmdir()
    return (
        f"Moved your Daemon data from {legacy} to {target}, the per-user folder that survives deleting or "
        "re-cloning the program (--data-dir or DAEMON_DATA_DIR choose another)."
    )
