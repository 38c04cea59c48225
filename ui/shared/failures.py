"""What a user sees when something fails: one line on stderr, never a traceback; details go to the log.

`run_guarded` is the one top-level handler every command runs under: a `DaemonError` is shown as its
message (exit 2 for bad input or configuration, 1 otherwise), Ctrl-C exits 130, and anything unexpected
becomes one line naming what failed and the log file that holds its traceback (exit 1). The REPL and the
GUI use `describe_unexpected` for a turn that fails, and carry on. A failure that a full disk caused says
so (`full_disk`), whatever layer it surfaced from: the user can fix that one.
"""

from __future__ import annotations

import errno
import logging
import logging.handlers
import shutil
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

from core.errors import ConfigError, DaemonError, StorageError, UserInputError
from core.text import clip

log = logging.getLogger("daemon")

LOG_FILE = "daemon.log"
LOG_BYTES = 1_000_000  # one file this size, plus two older ones
_FILE_ONLY = "daemon_file_only"  # a record with this attribute set is written to the log file only
# Less free space than this beside the data is called a full disk when a write failed: SQLite and Chroma
# report a full disk as "disk I/O error" or a failed compaction as often as by its name.
LOW_SPACE_BYTES = 16 * 1024 * 1024
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
_FULL_WORDS = ("disk is full", "no space left on device", "disk quota exceeded")


def exit_code(error: DaemonError) -> int:
    """2 when the user can fix the input or configuration, 1 when something else failed."""
    return 2 if isinstance(error, ConfigError | UserInputError) else 1


class _Brief(logging.Formatter):
    """One line per record on stderr: an exception is named, its traceback is for the log file."""

    def format(self, record: logging.LogRecord) -> str:
        record.message = record.getMessage()
        line = self.formatMessage(record)
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            line += f" ({type(error).__name__}: {clip(str(error), 160, one_line=True)})"
        return line


def setup_logging(level: str, data_dir: Path | None) -> Path | None:
    """Log `level` and above to stderr, one line each; with a usable `data_dir`, WARNING and above with
    tracebacks to `data_dir/daemon.log` too. Returns the log file, or None when there is none."""
    root = logging.getLogger()
    root.setLevel(min(logging.getLevelName(level), logging.WARNING))
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(level)
    formatter = logging.Formatter if level == "DEBUG" else _Brief  # DEBUG shows tracebacks on stderr too
    console.setFormatter(formatter("%(levelname)s %(name)s: %(message)s"))
    console.addFilter(lambda record: not getattr(record, _FILE_ONLY, False))
    root.addHandler(console)
    if data_dir is None:
        return None
    path = data_dir / LOG_FILE
    try:
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=LOG_BYTES, backupCount=2, encoding="utf-8", errors="backslashreplace"
        )
    except OSError:  # a read-only data dir: `history` still reads it, without a log file
        return None
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    return path


def log_file() -> Path | None:
    """The log file `setup_logging` opened, if any."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.FileHandler):
            return Path(handler.baseFilename)
    return None


def full_disk(error: BaseException, folder: Path | None = None) -> str | None:
    """The sentence to show when `error` came from a full disk, else None. Evidence either way: ENOSPC (or
    SQLite's "disk is full") anywhere in the error's chain of causes, or a failed read or write (an OSError,
    a SQLite or storage error in the chain) beside data whose disk has almost no space left. `folder` is
    the data folder (default: the one holding the log file)."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    named = any(
        (isinstance(e, OSError) and e.errno in _FULL_ERRNOS) or any(w in str(e).lower() for w in _FULL_WORDS)
        for e in chain
    )
    folder = folder if folder is not None else (path.parent if (path := log_file()) else None)
    try:
        free = shutil.disk_usage(folder).free if folder is not None else None
    except OSError:
        free = None
    storage = any(isinstance(e, OSError | sqlite3.Error | StorageError) for e in chain)
    if not named and not (storage and free is not None and free < LOW_SPACE_BYTES):
        return None
    where = f"the disk holding {folder}" if folder is not None else "the disk"
    left = f" ({free // 1024:,} KB left)" if free is not None else ""
    return f"{where} is full{left}: free some space and try again; nothing already saved was lost"


def describe_unexpected(error: BaseException, what: str) -> str:
    """Log `error`'s traceback (to the log file only) and return the line to show the user."""
    log.error("%s failed", what, exc_info=error, extra={_FILE_ONLY: True})
    where = log_file()
    if (full := full_disk(error)) is not None:
        return f"{what} failed: {full}"
    detail = clip(str(error), 160, one_line=True)
    kind = type(error).__name__ + (f": {detail}" if detail else "")
    tail = f"the details are in {where}" if where else "no log file could be written for this command"
    return f"{what} failed unexpectedly ({kind}); {tail}"


def run_guarded(body: Callable[[], int], what: str) -> int:
    """Run one command; whatever goes wrong, print one line and return the exit code."""
    try:
        return body()
    except DaemonError as error:
        full = full_disk(error) if isinstance(error, StorageError) else None
        print(f"error: {error}" + (f"; {full}" if full else ""), file=sys.stderr)
        return exit_code(error)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # noqa: BLE001 - the one place an unexpected error becomes a message
        print(f"error: {describe_unexpected(error, what)}", file=sys.stderr)
        return 1
