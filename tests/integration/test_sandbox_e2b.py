"""`execute_python` on E2B: the real `e2b-code-interpreter` SDK against a fake E2B on 127.0.0.1.

The fake speaks the wire format the SDK uses (read from the installed package): the control plane's
`POST /v2/sandboxes` (201 with `sandboxID`, `envdVersion`, `envdAccessToken`…) and `DELETE
/sandboxes/{id}`, and the sandbox's Jupyter `POST /execute`, which streams JSON lines (`stdout`, `stderr`,
`result`, `error`, `number_of_executions`). `E2B_API_URL` and `E2B_SANDBOX_URL` point the SDK at it.
Not covered: envd's own Connect-RPC protocol (process and filesystem calls), which this tool never uses.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from core.config_tools import CodeExecConfig
from core.errors import ToolError
from core.tools.base import Tool
from core.tools.code_exec import code_tools

pytestmark = pytest.mark.integration

CONFIG = CodeExecConfig(
    sandbox="e2b",
    e2b_api_key_env="E2B_API_KEY",
    cpu_seconds=10,
    memory_mb=512,
    max_processes=32,
    max_output_chars=300,
    wall_timeout_s=2.0,
)
SANDBOX_ID = "isb7k2fake"


@dataclass
class FakeE2B:
    """What the fake answers (`create_status`, `lines` of /execute, `hang`) and what it was asked."""

    create_status: int = 201
    lines: list[dict[str, Any]] = field(default_factory=list)
    hang: bool = False
    requests: list[tuple[str, str, dict[str, str], Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def paths(self) -> list[tuple[str, str]]:
        return [(method, path) for method, path, _, _ in self.requests]


class FakeE2BServer(ThreadingHTTPServer):
    """The HTTP server holding the fake's state for its handlers."""

    fake: FakeE2B


class FakeE2BHandler(BaseHTTPRequestHandler):
    """One request to the fake E2B; the state lives on the server (`server.fake`)."""

    protocol_version = "HTTP/1.1"

    @property
    def fake(self) -> FakeE2B:
        assert isinstance(self.server, FakeE2BServer)
        return self.server.fake

    def log_message(self, *args: object) -> None:
        pass

    def _json(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
        self.fake.requests.append(("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        if self.path == "/v2/sandboxes":
            self._create(body)
        elif self.path == "/execute":
            self._execute()
        else:
            self._json(404, {"code": 404, "message": f"no route {self.path}"})

    def do_DELETE(self) -> None:
        self.fake.requests.append(
            ("DELETE", self.path, {k.lower(): v for k, v in self.headers.items()}, None)
        )
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _create(self, body: dict[str, Any]) -> None:
        if self.fake.create_status == 429:
            self._json(429, {"code": 429, "message": "Rate limit exceeded"}, {"Retry-After": "0"})
            return
        self._json(
            201,
            {
                "templateID": body["templateID"],
                "sandboxID": SANDBOX_ID,
                "clientID": "fakeclient",
                "envdVersion": "0.2.4",
                "envdAccessToken": "envd-token",
                "trafficAccessToken": None,
                "domain": None,
            },
        )

    def _execute(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Connection", "close")  # a stream: the body ends when the connection does
        self.end_headers()
        if self.fake.hang:  # headers sent, then nothing: the execution never ends
            self.wfile.flush()
            self.fake.release.wait(30)
            return
        for line in self.fake.lines:
            self.wfile.write((json.dumps({"timestamp": 1, **line}) + "\n").encode())
        self.close_connection = True


@pytest.fixture
def fake() -> Iterator[tuple[FakeE2B, dict[str, str]]]:
    """A running fake E2B and the environment that points the tool at it."""
    state = FakeE2B()
    server = FakeE2BServer(("127.0.0.1", 0), FakeE2BHandler)
    server.fake = state
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    yield state, {"E2B_API_KEY": "e2b_fake_key", "E2B_API_URL": url, "E2B_SANDBOX_URL": url}
    state.release.set()
    server.shutdown()
    server.server_close()


def execute_python(env: dict[str, str], **overrides: Any) -> Tool:
    (tool,) = code_tools(CONFIG.model_copy(update=overrides), env)
    assert isinstance(tool, Tool), tool
    return tool


def test_code_runs_in_a_new_sandbox_without_internet_that_is_killed_afterwards(fake: Any) -> None:
    state, env = fake
    state.lines = [
        {"type": "stdout", "text": "42\n"},
        {"type": "number_of_executions", "execution_count": 1},
    ]
    result = execute_python(env)(code="print(6 * 7)")
    assert result.startswith("exit status: 0")
    assert "stdout:\n42" in result
    assert state.paths() == [
        ("POST", "/v2/sandboxes"),
        ("POST", "/execute"),
        ("DELETE", f"/sandboxes/{SANDBOX_ID}"),
    ]
    _, _, create_headers, create_body = state.requests[0]
    assert create_headers["x-api-key"] == "e2b_fake_key"
    assert create_body["templateID"] == "code-interpreter-v1"
    assert create_body["allow_internet_access"] is False
    _, _, run_headers, run_body = state.requests[1]
    assert run_body["code"] == "print(6 * 7)"
    assert run_headers["e2b-sandbox-id"] == SANDBOX_ID
    assert run_headers["x-access-token"] == "envd-token"


def test_auto_picks_e2b_when_its_key_is_set(fake: Any) -> None:
    state, env = fake
    state.lines = [{"type": "stdout", "text": "from e2b\n"}]
    result = execute_python(env, sandbox="auto")(code="print('from e2b')")
    assert "from e2b" in result
    assert ("POST", "/execute") in state.paths()


def test_the_value_of_the_last_expression_is_shown_as_in_a_notebook(fake: Any) -> None:
    state, env = fake
    state.lines = [{"type": "result", "text": "1267650600228229401496703205376", "is_main_result": True}]
    result = execute_python(env)(code="2 ** 100")
    assert "stdout:\n1267650600228229401496703205376" in result


def test_an_exception_comes_back_as_its_traceback(fake: Any) -> None:
    state, env = fake
    state.lines = [
        {"type": "stdout", "text": "before\n"},
        {
            "type": "error",
            "name": "ZeroDivisionError",
            "value": "division by zero",
            "traceback": "Traceback (most recent call last):\nZeroDivisionError: division by zero",
        },
    ]
    result = execute_python(env)(code="print('before')\n1/0")
    assert result.startswith("exit status: 1")
    assert "before" in result
    assert "ZeroDivisionError: division by zero" in result


def test_network_errors_are_explained(fake: Any) -> None:
    state, env = fake
    failure = "[Errno -3] Temporary failure in name resolution"
    state.lines = [
        {"type": "error", "name": "gaierror", "value": failure, "traceback": f"gaierror: {failure}"}
    ]
    result = execute_python(env)(code="import urllib.request; urllib.request.urlopen('https://example.com')")
    assert "network is not available in the sandbox" in result


def test_a_rate_limit_is_a_clear_tool_error_and_no_code_runs(fake: Any) -> None:
    state, env = fake
    state.create_status = 429
    with pytest.raises(ToolError, match=r"rate-limiting this key \(HTTP 429\)"):
        execute_python(env)(code="print(1)")
    assert ("POST", "/execute") not in state.paths()
    assert state.paths().count(("POST", "/v2/sandboxes")) == 2  # the SDK's one retry, then the error


def test_an_execution_past_the_wall_clock_limit_is_stopped_and_the_sandbox_killed(fake: Any) -> None:
    state, env = fake
    state.hang = True
    result = execute_python(env, wall_timeout_s=1.0)(code="import time; time.sleep(600)")
    assert "exit status: none (stopped before it finished)" in result
    assert "stopped: wall-clock limit (1 s)" in result
    assert state.paths()[-1] == ("DELETE", f"/sandboxes/{SANDBOX_ID}")


def test_output_past_the_cap_stops_the_stream(fake: Any) -> None:
    state, env = fake
    state.lines = [{"type": "stdout", "text": "y" * 100 + "\n"} for _ in range(1000)]
    result = execute_python(env)(code="while True: print('y' * 100)")
    assert "output truncated at 300 chars" in result
    assert "stopped: too much output (more than 300 chars)" in result
    printed = result.split("stdout:\n")[1].split("\nstderr:")[0]
    assert len(printed) <= 300
    assert state.paths()[-1] == ("DELETE", f"/sandboxes/{SANDBOX_ID}")


def test_without_the_key_e2b_is_unavailable_and_says_which_variable() -> None:
    (tool,) = code_tools(CONFIG, {"E2B_API_URL": "http://127.0.0.1:9"})
    assert not isinstance(tool, Tool)
    assert tool.reason == "needs E2B_API_KEY (tools.execute_python.sandbox: e2b)"
