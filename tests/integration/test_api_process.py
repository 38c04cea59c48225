"""`python main.py api` as a user runs it: a real process on a free port over a temporary data dir with the
echo provider, spoken to by the official `openai` client; its turns land in the journal `history` reads,
its token file is private, foreign Host headers and missing tokens are refused, and SIGTERM ends it the way
the other front ends end (session-end processing, exit 143)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from openai import AuthenticationError, OpenAI

ROOT = Path(__file__).resolve().parents[2]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
START_TIMEOUT_S = 240  # loading MiniLM and the stores on a busy 2-core machine
READY = re.compile(r"Daemon API at http://127\.0\.0\.1:(\d+)/v1")

pytestmark = pytest.mark.integration


def daemon_env(folder: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DAEMON_API_TOKEN"}
    return {**env, "DAEMON_DATA_DIR": str(folder / "data"), **extra}


def main_args(folder: Path, *more: str) -> list[str]:
    config = folder / "echo.yaml"
    config.write_text(ECHO_CONFIG)
    return [sys.executable, str(ROOT / "main.py"), "--config", str(config), *more]


@dataclass
class Server:
    """The `api` process, its port and everything it wrote to stderr (read by a thread as it comes)."""

    proc: subprocess.Popen[str]
    folder: Path
    port: int = 0
    lines: list[str] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def token(self) -> str:
        return (self.folder / "data" / "api_token").read_text().strip()

    def stderr(self) -> str:
        return "".join(self.lines)


def start(folder: Path) -> Server:
    proc = subprocess.Popen(
        main_args(folder, "api", "--port", "0"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=daemon_env(folder),
        cwd=folder,
    )
    server = Server(proc, folder)
    ready = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            server.lines.append(line)
            if found := READY.search(line):
                server.port = int(found.group(1))
                ready.set()
        ready.set()  # the process ended

    threading.Thread(target=read, daemon=True).start()
    ready.wait(START_TIMEOUT_S)
    if not server.port:
        proc.kill()
        pytest.fail(f"the API server did not start:\n{server.stderr()[-3000:]}")
    return server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start(tmp_path_factory.mktemp("api"))
    yield running
    if running.proc.poll() is None:
        running.proc.kill()
        running.proc.wait(timeout=60)


def client(server: Server, token: str | None = None) -> OpenAI:
    return OpenAI(base_url=server.base_url, api_key=token or server.token, max_retries=0, timeout=120)


@pytest.mark.slow
def test_the_openai_client_gets_an_answer_and_history_shows_the_turn(server: Server) -> None:
    reply = client(server).chat.completions.create(
        model="daemon", messages=[{"role": "user", "content": "hello from the api"}]
    )
    content = reply.choices[0].message.content
    assert content is not None and content.strip() == "hello from the api"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage is not None and reply.usage.total_tokens > 0
    history = subprocess.run(  # reads beside the running server, as it does beside the GUI
        main_args(server.folder, "history", "--json"),
        env=daemon_env(server.folder),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=server.folder,
    )
    assert history.returncode == 0, history.stderr
    turns = json.loads(history.stdout)["turns"]
    mine = [t for t in turns if t["user"] == "hello from the api"]
    assert len(mine) == 1
    assert (mine[0]["assistant"].strip(), mine[0]["status"]) == ("hello from the api", "complete")
    assert mine[0]["session_id"].startswith("api-")


@pytest.mark.slow
def test_the_openai_client_streams_the_answer(server: Server) -> None:
    stream = client(server).chat.completions.create(
        model="echo",
        messages=[{"role": "user", "content": "stream these four words"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.split() == ["stream", "these", "four", "words"]
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1  # deltas, not one blob


@pytest.mark.slow
def test_the_models_list_has_daemon_first_and_the_configured_model(server: Server) -> None:
    ids = [m.id for m in client(server).models.list()]
    assert ids[0] == "daemon" and "echo" in ids


@pytest.mark.slow
def test_no_token_or_a_wrong_one_is_401(server: Server) -> None:
    bare = httpx.get(f"{server.base_url}/models", timeout=30)
    assert bare.status_code == 401
    assert set(bare.json()["error"]) >= {"message", "type", "code"}
    with pytest.raises(AuthenticationError):
        client(server, token="not-the-token-0123456789").chat.completions.create(
            model="daemon", messages=[{"role": "user", "content": "let me in"}]
        )


@pytest.mark.slow
def test_a_foreign_host_header_is_refused_and_health_needs_no_token(server: Server) -> None:
    health = httpx.get(f"http://127.0.0.1:{server.port}/health", timeout=30)
    assert health.status_code == 200 and health.json()["status"] in ("ok", "degraded")
    rebound = httpx.get(
        f"{server.base_url}/models",
        headers={"host": "evil.example", "authorization": f"Bearer {server.token}"},
        timeout=30,
    )
    assert rebound.status_code == 400


@pytest.mark.slow
def test_the_token_file_is_private_and_never_printed(server: Server) -> None:
    path = server.folder / "data" / "api_token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(server.token) >= 16
    assert str(path) in server.stderr()
    assert server.token not in server.stderr()  # stderr is no terminal here: the token stays in the file


@pytest.mark.slow
def test_sigterm_ends_the_served_sessions_and_exits_143(server: Server) -> None:
    """Last in this file: it stops the module's server."""
    client(server).chat.completions.create(
        model="daemon", messages=[{"role": "user", "content": "I live in Porto"}]
    )
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=180) == 128 + signal.SIGTERM, server.stderr()[-3000:]
    assert "Saving what these sessions taught me" in server.stderr()
    assert "Traceback" not in server.stderr()
    with sqlite3.connect(server.folder / "data" / "session_jobs.sqlite3") as db:
        sessions = {row[0] for row in db.execute("SELECT session_id FROM shutdown_jobs")}
    assert any(s.startswith("api-") for s in sessions)


def test_a_non_loopback_bind_without_an_env_token_is_refused(tmp_path: Path) -> None:
    result = subprocess.run(
        main_args(tmp_path, "api", "--host", "0.0.0.0", "--port", "0"),
        env=daemon_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "DAEMON_API_TOKEN" in lines[0]
    assert not (tmp_path / "data" / "api_token").exists()


def test_a_taken_port_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = subprocess.run(
            main_args(tmp_path, "api", "--port", str(port)),
            env=daemon_env(tmp_path),
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "Traceback" not in result.stderr
