"""The Docker image's entrypoint (installer/docker-entrypoint.sh), run directly as the image runs it.

No Docker engine runs here, so the script is started the way tini starts it: as a child whose signals it
forwards. It must replace itself with Daemon, so that `docker stop`'s SIGTERM reaches Python (a shell
left in between would swallow it) and the session-end steps run before a clean exit; and the container's
0.0.0.0 bind must be refused without a login.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = ROOT / "installer" / "docker-entrypoint.sh"
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
SIGTERM_EXIT = 128 + signal.SIGTERM
START_TIMEOUT_S = 300

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def entrypoint_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The image's environment, with this venv's Python and a temporary data dir."""
    (tmp_path / "echo.yaml").write_text(ECHO_CONFIG)
    return {
        **os.environ,
        "DAEMON_PYTHON": sys.executable,
        "DAEMON_DATA_DIR": str(tmp_path / "data"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "GRADIO_ANALYTICS_ENABLED": "False",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def start(args: list[str], env: dict[str, str], cwd: Path, **popen: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(ENTRYPOINT), "--config", str(cwd / "echo.yaml"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
        **popen,
    )


def assert_is_python(pid: int) -> None:
    """The entrypoint's process became Python running main.py: no shell is left to swallow signals."""
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert Path(os.fsdecode(cmdline[0])).name.startswith("python"), cmdline
    assert os.fsdecode(cmdline[1]).endswith("main.py"), cmdline


def test_sigterm_to_the_entrypoint_runs_session_end_then_exits_cleanly(tmp_path: Path) -> None:
    env = entrypoint_env(tmp_path)
    proc = start(["cli"], env, tmp_path, stdin=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    proc.stdin.write("I live in Boston and I work at Acme Robotics.\n")
    proc.stdin.flush()
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and "daemon> I live in Boston" not in proc.stdout.readline():
        pass
    assert_is_python(proc.pid)
    proc.send_signal(signal.SIGTERM)  # what tini forwards on `docker stop`
    # stdin stays open until it has exited: communicate() would close it, and an end of input read before
    # the signal lands ends the REPL normally (exit 0), which is not what this test asks
    proc.wait(timeout=START_TIMEOUT_S)
    _, stderr = proc.communicate(timeout=START_TIMEOUT_S)
    assert proc.returncode == SIGTERM_EXIT, stderr[-2000:]
    assert "Saving what this session taught me" in stderr
    with sqlite3.connect(tmp_path / "data" / "session_jobs.sqlite3") as db:
        statuses = {status for (status,) in db.execute("SELECT status FROM shutdown_jobs")}
    assert statuses and statuses <= {"done", "skipped"}
    assert "Traceback" not in stderr


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _page_answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def test_the_default_command_serves_the_gui_and_sigterm_ends_its_sessions(tmp_path: Path) -> None:
    port = _free_port()
    env = entrypoint_env(tmp_path, DAEMON_GUI__HOST="127.0.0.1", DAEMON_GUI__PORT=str(port))
    proc = start(["gui"], env, tmp_path, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and proc.poll() is None and not _page_answers(port):
            time.sleep(0.5)
        assert proc.poll() is None, proc.communicate()[1][-2000:]
        assert _page_answers(port)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as response:
            assert json.loads(response.read())["ok"] is True  # what the image's HEALTHCHECK asks
        assert_is_python(proc.pid)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=START_TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == SIGTERM_EXIT, stderr[-2000:]
    assert "Saving what these sessions taught me" in stderr  # the GUI's session-end ran on the way out
    assert "Traceback" not in stderr


def test_the_containers_open_bind_is_refused_without_a_login(tmp_path: Path) -> None:
    env = entrypoint_env(tmp_path, DAEMON_GUI__HOST="0.0.0.0", DAEMON_GUI__PORT=str(_free_port()))
    env.pop("DAEMON_GUI_AUTH", None)
    proc = start(["gui"], env, tmp_path, stdin=subprocess.DEVNULL)
    _, stderr = proc.communicate(timeout=START_TIMEOUT_S)
    assert proc.returncode == 2, stderr[-2000:]
    lines = stderr.strip().splitlines()
    assert lines and lines[-1].startswith("error:") and "DAEMON_GUI_AUTH" in lines[-1]
