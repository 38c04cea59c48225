"""Local fake servers for the web tools: Tavily's `POST /search` and Wolfram|Alpha's `GET /api/v1/llm-api`.

Each is a real HTTP server on 127.0.0.1 in a thread; the real clients (tavily-python's AsyncTavilyClient,
httpx) talk to it. A server answers from its `pages` (query -> results) or `answers` (input -> text) unless
a scripted failure is queued (`fail_next`), checks the key the way the real service does (401 / 403), and
records every request, so a test can assert that a cached or refused search made no request at all.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Failure:
    """A scripted answer instead of the normal one: an HTTP status with a body, and/or a stall."""

    status: int = 200
    body: str = ""
    delay_s: float = 0.0


@dataclass
class Seen:
    """One request the fake received: path, query parameters, lower-cased headers and the JSON body."""

    method: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    body: Any = None


@dataclass
class _Base:
    """Shared server machinery: ephemeral loopback port, request log, queued failures."""

    requests: list[Seen] = field(default_factory=list)
    failures: deque[Failure] = field(default_factory=deque)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._release = threading.Event()  # set on stop: a stalled handler returns at once
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,), daemon=True)

    @property
    def base_url(self) -> str:
        """Where the fake listens, e.g. http://127.0.0.1:40123."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> _Base:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._release.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def fail_next(self, *failures: Failure) -> None:
        """Answer the next requests with these failures, in order."""
        with self._lock:
            self.failures.extend(failures)

    def _take(self, seen: Seen) -> Failure | None:
        with self._lock:
            self.requests.append(seen)
            return self.failures.popleft() if self.failures else None

    def answer(self, seen: Seen) -> tuple[int, str, str]:
        """(status, content type, body) of a normal answer."""
        raise NotImplementedError


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: ClassVar[_Base]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:
        self._handle("GET", None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        self._handle("POST", json.loads(raw) if raw else None)

    def _handle(self, method: str, body: Any) -> None:
        parts = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        seen = Seen(method, parts.path, params, {k.lower(): v for k, v in self.headers.items()}, body)
        failure = self.fake._take(seen)
        if failure is not None and failure.delay_s:
            self.fake._release.wait(failure.delay_s)
        if failure is not None and failure.status != 200:
            status, kind, text = failure.status, "application/json", failure.body
        else:
            status, kind, text = self.fake.answer(seen)
        data = text.encode()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeouts)
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)


def tavily_error(status: int, message: str) -> Failure:
    """A Tavily error response: `{"detail": {"error": message}}` with that status."""
    return Failure(status, json.dumps({"detail": {"error": message}}))


def result(title: str, url: str, content: str, score: float = 0.8) -> dict[str, Any]:
    """One entry of Tavily's `results` array."""
    return {"title": title, "url": url, "content": content, "score": score, "raw_content": None}


@dataclass
class FakeTavily(_Base):
    """`POST /search` with `Authorization: Bearer <api_key>`; results from `pages` by exact query."""

    api_key: str = "tvly-test-key"
    pages: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def answer(self, seen: Seen) -> tuple[int, str, str]:
        if seen.path != "/search" or seen.method != "POST":
            return 404, "application/json", json.dumps({"detail": {"error": "Not Found"}})
        if seen.headers.get("authorization") != f"Bearer {self.api_key}":
            return (
                401,
                "application/json",
                json.dumps({"detail": {"error": "Unauthorized: missing or invalid API key."}}),
            )
        query = seen.body.get("query", "")
        found = self.pages.get(query, [])[: int(seen.body.get("max_results", 5))]
        body = {
            "query": query,
            "follow_up_questions": None,
            "answer": None,
            "images": [],
            "results": found,
            "response_time": 0.42,
            "request_id": f"req-{len(self.requests)}",
        }
        return 200, "application/json", json.dumps(body)

    def queries(self) -> list[str]:
        """The queries searched, in arrival order."""
        return [r.body.get("query", "") for r in self.requests]


@dataclass
class FakeWolfram(_Base):
    """`GET /api/v1/llm-api?input=…&appid=…&maxchars=…`: plain text from `answers`, 501 for any other input,
    403 for a wrong app id (the real API's texts)."""

    app_id: str = "WOLF-TEST"
    answers: dict[str, str] = field(default_factory=dict)

    def answer(self, seen: Seen) -> tuple[int, str, str]:
        if seen.path != "/api/v1/llm-api":
            return 404, "text/plain", "Not Found"
        if seen.params.get("appid") != self.app_id:
            return 403, "text/plain", "Error 1: Invalid appid"
        text = self.answers.get(seen.params.get("input", ""))
        if text is None:
            return 501, "text/plain", "Wolfram|Alpha did not understand your input"
        return 200, "text/plain; charset=utf-8", text
