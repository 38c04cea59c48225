"""The endpoint and token files a running Daemon keeps in its data dir: private from creation, read back
as written, removed on exit only while they are this process's, and anything malformed read as absent."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from ui.attach.endpoint import (
    ENDPOINT_FILE,
    TOKEN_FILE,
    ControlFiles,
    new_token,
    pid_alive,
    read_endpoint,
    read_token,
)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_token_file_is_private_even_under_a_permissive_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        files = ControlFiles(tmp_path)
        files.announce(4321, "api")
    finally:
        os.umask(old)
    assert mode(tmp_path / TOKEN_FILE) == 0o600
    assert mode(tmp_path / ENDPOINT_FILE) == 0o600
    assert read_token(tmp_path) == files.token and len(files.token) >= 32


def test_a_new_token_replaces_an_old_file_and_differs_each_run(tmp_path: Path) -> None:
    path = tmp_path / TOKEN_FILE
    path.write_text("old-token-from-a-crashed-run\n")
    path.chmod(0o644)
    first = new_token(path)
    second = new_token(path)
    assert first != second and read_token(tmp_path) == second
    assert mode(path) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [TOKEN_FILE]  # no temporary file left behind


def test_the_endpoint_reads_back_as_announced(tmp_path: Path) -> None:
    announced = ControlFiles(tmp_path).announce(8765, "gui")
    assert read_endpoint(tmp_path) == announced
    assert (announced.pid, announced.port, announced.kind, announced.host) == (
        os.getpid(),
        8765,
        "gui",
        "127.0.0.1",
    )


def test_withdraw_removes_both_files(tmp_path: Path) -> None:
    files = ControlFiles(tmp_path)
    files.announce(8765, "api")
    files.withdraw()
    assert not (tmp_path / ENDPOINT_FILE).exists() and not (tmp_path / TOKEN_FILE).exists()
    files.withdraw()  # twice is harmless


def test_withdraw_leaves_another_processs_endpoint_alone(tmp_path: Path) -> None:
    files = ControlFiles(tmp_path)
    other = {"port": 9000, "pid": os.getpid() + 1, "started": 1.0, "kind": "gui"}
    (tmp_path / ENDPOINT_FILE).write_text(json.dumps(other))
    files.withdraw()
    endpoint = read_endpoint(tmp_path)
    assert endpoint is not None and endpoint.port == 9000


@pytest.mark.parametrize(
    "content",
    [
        "",
        "not json",
        "[1, 2]",
        '{"port": 8765}',
        '{"port": 0, "pid": 12, "started": 1, "kind": "api"}',
        '{"port": 8765, "pid": -1, "started": 1, "kind": "api"}',
        '{"port": "x", "pid": 12, "started": 1, "kind": "api"}',
    ],
)
def test_a_malformed_endpoint_file_reads_as_none(tmp_path: Path, content: str) -> None:
    (tmp_path / ENDPOINT_FILE).write_text(content)
    assert read_endpoint(tmp_path) is None


def test_missing_files_read_as_none(tmp_path: Path) -> None:
    assert read_endpoint(tmp_path) is None and read_token(tmp_path) is None


def test_pid_alive_tells_a_running_process_from_an_ended_one() -> None:
    child = subprocess.Popen(["true"])
    child.wait()
    assert pid_alive(os.getpid())
    assert not pid_alive(child.pid)
