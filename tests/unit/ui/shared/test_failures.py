"""The one top-level handler: a failure is one line for the user and a traceback in the log file."""

from __future__ import annotations

import errno
import logging
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.errors import ConfigError, ProviderError, StorageError, UserInputError
from ui.shared import failures
from ui.shared.failures import (
    describe_unexpected,
    exit_code,
    full_disk,
    log_file,
    run_guarded,
    setup_logging,
)


@pytest.fixture
def root_logger() -> Iterator[logging.Logger]:
    """setup_logging configures the root logger: put it back as it was after each test."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    root.handlers = []
    yield root
    for handler in root.handlers:
        handler.close()
    root.handlers, root.level = handlers, level


def test_bad_input_and_configuration_exit_2_other_failures_exit_1() -> None:
    assert exit_code(UserInputError("x")) == 2 and exit_code(ConfigError("x")) == 2
    assert exit_code(StorageError("x")) == 1 and exit_code(ProviderError("x")) == 1


def test_a_daemon_error_is_its_message(
    capsys: pytest.CaptureFixture[str], root_logger: logging.Logger
) -> None:
    def fail() -> int:
        raise UserInputError("give either a message or --file FILE")

    assert run_guarded(fail, "`analyze`") == 2
    assert capsys.readouterr().err == "error: give either a message or --file FILE\n"


def test_an_unexpected_error_is_one_line_and_its_traceback_goes_to_the_log_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], root_logger: logging.Logger
) -> None:
    path = setup_logging("WARNING", tmp_path)
    assert path == tmp_path / "daemon.log" == log_file()

    def crash() -> int:
        raise KeyError("no such thing")

    assert run_guarded(crash, "`history`") == 1
    err = capsys.readouterr().err
    assert err == (
        f"error: `history` failed unexpectedly (KeyError: 'no such thing'); the details are in {path}\n"
    )
    logged = path.read_text()
    assert "Traceback" in logged and "in crash" in logged and "`history` failed" in logged


def test_stderr_log_lines_never_carry_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], root_logger: logging.Logger
) -> None:
    setup_logging("WARNING", tmp_path)
    try:
        raise ValueError("bad value")
    except ValueError:
        logging.getLogger("daemon.test").warning("a step failed", exc_info=True)
    err = capsys.readouterr().err
    assert err == "WARNING daemon.test: a step failed (ValueError: bad value)\n"
    assert "Traceback" in (tmp_path / "daemon.log").read_text()


def test_without_a_usable_data_dir_the_message_says_there_is_no_log(
    tmp_path: Path, root_logger: logging.Logger
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert setup_logging("WARNING", blocker) is None and log_file() is None
    assert describe_unexpected(OSError("disk"), "this turn").endswith(
        "no log file could be written for this command"
    )


def test_ctrl_c_exits_130(capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted() -> int:
        raise KeyboardInterrupt

    assert run_guarded(interrupted, "`cli`") == 130 and "interrupted" in capsys.readouterr().err


def _raised(error: BaseException, cause: BaseException) -> BaseException:
    try:
        raise error from cause
    except BaseException as caught:  # noqa: BLE001 - the chain is what is under test
        return caught


def test_a_full_disk_named_anywhere_in_the_causes_is_said_plainly(tmp_path: Path) -> None:
    no_space = OSError(errno.ENOSPC, "No space left on device")
    wrapped = _raised(StorageError("cannot write the journal"), no_space)
    said = full_disk(wrapped, tmp_path)
    assert said is not None and said.startswith(f"the disk holding {tmp_path} is full (")
    assert "free some space" in said
    assert full_disk(sqlite3.OperationalError("database or disk is full"), tmp_path) is not None


def test_a_vague_storage_failure_is_called_a_full_disk_only_when_the_disk_is_nearly_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vague = sqlite3.OperationalError("disk I/O error")
    assert full_disk(vague, tmp_path) is None  # this disk has room: something else failed
    nearly_full = shutil.disk_usage(tmp_path)._replace(free=8 * 1024)
    monkeypatch.setattr(failures.shutil, "disk_usage", lambda _path: nearly_full)
    assert full_disk(vague, tmp_path) == (
        f"the disk holding {tmp_path} is full (8 KB left): free some space and try again; "
        "nothing already saved was lost"
    )
    assert full_disk(ValueError("a bug, not the disk"), tmp_path) is None  # not a read or a write


def test_a_command_that_fails_on_a_full_disk_says_so(
    tmp_path: Path, root_logger: logging.Logger, capsys: pytest.CaptureFixture[str]
) -> None:
    setup_logging("WARNING", tmp_path)

    def body() -> int:
        raise sqlite3.OperationalError("database or disk is full")

    assert run_guarded(body, "`ask`") == 1
    line = capsys.readouterr().err.strip()
    assert line.startswith(f"error: `ask` failed: the disk holding {tmp_path} is full (")
    assert "unexpectedly" not in line
