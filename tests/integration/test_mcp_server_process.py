"""`python main.py mcp` as an MCP client starts it: the official SDK client over stdio and over HTTP (with and
without the bearer token), real models and stores in a temporary data dir; and the raw stdio stream, which
must carry nothing but JSON-RPC even when a model library prints while it loads."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
START_TIMEOUT_S = 240  # loading MiniLM (and spaCy at the first note) on a busy 2-core machine
# Imported by the server through PYTHONPATH: prints to stdout, from Python and from C, when a model library
# is imported, as careless libraries do. The protocol stream must not see it.
NOISY_SITECUSTOMIZE = """
import os, sys

class _Noisy:
    def find_spec(self, name, path=None, target=None):
        if name in ("chromadb", "sentence_transformers", "spacy"):  # at start, first search, first note
            print(f"NOISE from {name}", flush=True)
            os.write(1, f"NOISE written to fd 1 by {name}\\n".encode())
        return None

sys.meta_path.insert(0, _Noisy())
"""

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def server_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data"), **extra}


def server_args(tmp_path: Path, *more: str) -> list[str]:
    config = tmp_path / "echo.yaml"
    config.write_text(ECHO_CONFIG)
    return [str(ROOT / "main.py"), "--config", str(config), "mcp", *more]


def result_json(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


async def _exercise(client: Any) -> None:
    """add_memory then search_memory finds it; get_profile; query_graph; bad input is a tool error."""
    listed = await client.list_tools()
    assert {t.name for t in listed.tools} == {"search_memory", "add_memory", "get_profile", "query_graph"}
    added = result_json(
        await client.call_tool("add_memory", {"text": "My sister Jo lives in Denver. I work at Acme Corp."})
    )
    assert "The user works at Acme Corp." in added["facts_accepted"]
    found = result_json(await client.call_tool("search_memory", {"query": "where does my sister live"}))
    assert added["id"] in [r["id"] for r in found["results"]]
    profile = result_json(await client.call_tool("get_profile", {}))
    assert "The user works at Acme Corp." in [f["fact"] for f in profile["facts"]]
    jo = result_json(await client.call_tool("query_graph", {"entity": "Jo"}))
    assert "Jo lives in Denver." in [r["fact"] for r in jo["relations"]]
    bad = await client.call_tool("search_memory", {"query": "Jo", "collection": "diary"})
    assert bad.is_error and "unknown collection 'diary'" in bad.content[0].text


def test_the_sdk_client_uses_the_memory_over_stdio(tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=server_args(tmp_path), env=server_env(tmp_path), cwd=str(tmp_path)
    )

    async def session() -> None:
        async with Client(params, read_timeout_seconds=START_TIMEOUT_S) as client:
            await _exercise(client)

    asyncio.run(session())
    history = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "history", "--json"],
        env=server_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    turns = json.loads(history.stdout)["turns"]
    assert [(t["user"], t["model"]) for t in turns] == [
        ("My sister Jo lives in Denver. I work at Acme Corp.", "mcp")
    ]


class RawStdio:
    """The server as a child process spoken to line by line; every stdout line is kept."""

    def __init__(self, tmp_path: Path) -> None:
        hooks = tmp_path / "hooks"
        hooks.mkdir()
        (hooks / "sitecustomize.py").write_text(NOISY_SITECUSTOMIZE)
        env = server_env(tmp_path, PYTHONPATH=str(hooks))
        self.proc = subprocess.Popen(
            [sys.executable, *server_args(tmp_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tmp_path,
            text=True,
        )
        self.lines: list[str] = []
        self.stderr = ""
        self._watchdog = threading.Timer(START_TIMEOUT_S * 2, self.proc.kill)  # a hung server fails the test
        self._watchdog.start()

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        stdout: IO[str] | None = self.proc.stdout
        assert stdout is not None
        for line in stdout:
            self.lines.append(line)
            message = json.loads(line)  # a line that is not JSON fails here
            if message.get("id") == request_id:
                return message
        raise AssertionError(f"the server closed stdout before answering {method}")

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.lines.extend(self.proc.stdout)
        self.stderr = self.proc.stderr.read() if self.proc.stderr else ""
        self.proc.wait(60)
        self._watchdog.cancel()


def test_stdout_carries_only_the_protocol_while_models_load_and_run(tmp_path: Path) -> None:
    raw = RawStdio(tmp_path)
    try:
        init = raw.request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "1"},
            },
        )
        assert init["result"]["serverInfo"]["name"] == "daemon-memory"
        raw.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        note = {"name": "add_memory", "arguments": {"text": "I live in Lyon."}}
        added = raw.request(2, "tools/call", note)  # spaCy loads here, while the SDK serves
        assert added["result"]["isError"] is False
    finally:
        raw.close()
    assert raw.proc.returncode == 0
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in raw.lines)
    # The noise was printed (so the test can fail), but went to stderr.
    for library in ("chromadb", "spacy"):
        assert f"NOISE from {library}" in raw.stderr and f"NOISE written to fd 1 by {library}" in raw.stderr


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[str], list[str]]]:
    """`mcp --http 0`: the URL it prints, the process, and its stderr lines (read by a thread)."""
    proc = subprocess.Popen(
        [sys.executable, *server_args(tmp_path, "--http", "0")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(tmp_path),
        cwd=tmp_path,
        text=True,
    )
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "/mcp" in line:
                found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert found.wait(START_TIMEOUT_S), "".join(lines)
        url = re.search(r"http://127\.0\.0\.1:\d+/mcp", "".join(lines))
        assert url is not None
        yield url.group(0), proc, lines
    finally:
        proc.terminate()
        proc.wait(60)
        reader.join(10)


def _post(url: str, headers: dict[str, str]) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
    request = urllib.request.Request(
        url,
        data=body,
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, or the error itself."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def test_http_needs_the_bearer_token_from_the_data_dir(
    tmp_path: Path, http_server: tuple[str, subprocess.Popen[str], list[str]]
) -> None:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    url, proc, stderr = http_server
    token_file = tmp_path / "data" / "mcp_token"
    token = token_file.read_text().strip()
    assert token_file.stat().st_mode & 0o777 == 0o600
    assert str(token_file) in "".join(stderr) and token not in "".join(stderr)  # the path, never the token
    assert url.startswith("http://127.0.0.1:")

    assert _post(url, {}) == 401
    assert _post(url, {"Authorization": "Bearer not-the-token-0123456789"}) == 401
    assert _post(url, {"Authorization": token}) == 401  # the scheme is required

    async def session(headers: dict[str, str]) -> None:
        http = create_mcp_http_client(headers=headers)
        async with Client(
            streamable_http_client(url, http_client=http), read_timeout_seconds=START_TIMEOUT_S
        ) as c:
            await _exercise(c)

    asyncio.run(session({"Authorization": f"Bearer {token}"}))
    with pytest.raises(Exception) as refused:
        asyncio.run(session({}))
    assert any("401" in str(leaf) for leaf in _leaves(refused.value))
    assert proc.poll() is None  # refused clients did not bring the server down


def test_a_taken_port_is_a_one_line_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, *server_args(tmp_path, "--http", str(port))],
            capture_output=True,
            text=True,
            env=server_env(tmp_path),
            cwd=tmp_path,
            timeout=START_TIMEOUT_S,
        )
    assert result.returncode == 2
    assert (
        result.stderr.strip().splitlines()[-1]
        == f"error: cannot listen on 127.0.0.1:{port}: Address already in use"
    )
    assert "Traceback" not in result.stderr
