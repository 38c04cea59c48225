"""Scripted local HTTP servers that speak the OpenAI, Anthropic and Gemini wire formats.

The real SDKs talk to these over 127.0.0.1, so contract tests exercise the SDK's own request building,
SSE parsing and error classes. Each server answers requests with the next scripted `Step` (a text answer,
tool calls, an HTTP error, or a stream cut off mid-way) and records every request it received.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Literal, Self
from urllib.parse import parse_qs, urlsplit

Truncation = Literal["drop", "eof"]


@dataclass(frozen=True)
class FakeCall:
    """A tool call the fake model makes. `raw_arguments` replaces the JSON encoding (malformed-JSON tests)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = "call_1"
    raw_arguments: str | None = None
    signature: str = ""  # Gemini `thoughtSignature` (base64) attached to the functionCall part

    @property
    def arguments_json(self) -> str:
        return self.raw_arguments if self.raw_arguments is not None else json.dumps(self.arguments)


@dataclass(frozen=True)
class Step:
    """One scripted response.

    `truncate="drop"` closes the connection mid-body (no terminating chunk); `truncate="eof"` ends the
    HTTP body cleanly but before the vendor's finish marker. Both send only the first half of the events.
    `delay` stalls that many seconds before answering (timeout tests); `details` go into a Gemini error body.
    `mangle` (OpenAI only) breaks the answer the way broken servers and proxies do: "empty_choices" sends
    `choices: []`, "bad_json" puts a stream event that is not JSON after the first one.
    """

    text: str = ""
    calls: tuple[FakeCall, ...] = ()
    status: int = 200
    message: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    truncate: Truncation | None = None
    delay: float = 0.0
    details: tuple[dict[str, Any], ...] = ()
    input_tokens: int = 12
    output_tokens: int = 7
    mangle: str | None = None


def reply(text: str, *, input_tokens: int = 12, output_tokens: int = 7) -> Step:
    """A plain text answer."""
    return Step(text=text, input_tokens=input_tokens, output_tokens=output_tokens)


def tool_calls(*calls: FakeCall, text: str = "") -> Step:
    """An answer that asks for tool calls."""
    return Step(text=text, calls=calls)


def error(status: int, message: str = "scripted failure", retry_after: str | None = None) -> Step:
    """An HTTP error in the vendor's error-body format, optionally with a Retry-After header."""
    headers = (("Retry-After", retry_after),) if retry_after is not None else ()
    return Step(status=status, message=message, headers=headers)


def cut_off(text: str, how: Truncation = "drop") -> Step:
    """A stream that stops half-way (see `Step.truncate`)."""
    return Step(text=text, truncate=how)


def pieces(text: str, count: int = 4) -> list[str]:
    """Split text into about `count` consecutive pieces (whitespace kept) for streaming."""
    if not text:
        return []
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)]


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event; `data` is JSON-encoded unless it is already a string."""
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


@dataclass
class RecordedRequest:
    """What the SDK sent: method, path, query, lower-cased headers and the JSON body."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


class FakeServer:
    """Base class: threading HTTP server on an ephemeral loopback port with a script of steps."""

    vendor: ClassVar[str] = "fake"

    def __init__(self) -> None:
        self.steps: deque[Step] = deque()
        self.requests: list[RecordedRequest] = []
        self.unexpected = 0
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        # A short poll interval keeps `stop()` (which waits for the serve loop) fast.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def script(self, *steps: Step) -> Self:
        """Append steps to the queue; each request consumes one."""
        with self._lock:
            self.steps.extend(steps)
        return self

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def next_step(self, request: RecordedRequest) -> Step | None:
        with self._lock:
            self.requests.append(request)
            if not self.steps:
                self.unexpected += 1
                return None
            return self.steps.popleft()

    def assert_done(self) -> None:
        """Fail if a scripted step was never used or a request arrived with no step left."""
        assert not self.steps, f"{len(self.steps)} scripted step(s) never requested"
        assert not self.unexpected, f"{self.unexpected} request(s) beyond the script"

    # Vendor hooks.
    def is_stream(self, request: RecordedRequest) -> bool:
        raise NotImplementedError

    def body(self, step: Step, request: RecordedRequest) -> dict[str, Any]:
        raise NotImplementedError

    def events(self, step: Step, request: RecordedRequest) -> list[bytes]:
        raise NotImplementedError

    def error_body(self, step: Step) -> dict[str, Any]:
        return {"error": {"message": step.message, "code": step.status}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: ClassVar[FakeServer]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # keep test output clean

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        request = RecordedRequest(
            "POST",
            parts.path,
            parse_qs(parts.query),
            {k.lower(): v for k, v in self.headers.items()},
            json.loads(raw) if raw else None,
        )
        step = self.fake.next_step(request)
        if step is not None and step.delay:
            time.sleep(step.delay)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeouts)
            self._respond(step, request)

    def _respond(self, step: Step | None, request: RecordedRequest) -> None:
        if step is None:
            self._send_json(500, {"error": {"message": "fake server: no scripted response left"}})
        elif step.status != 200:
            self._send_json(step.status, self.fake.error_body(step), step.headers)
        elif self.fake.is_stream(request):
            self._send_stream(self.fake.events(step, request), step.truncate)
        else:
            self._send_json(200, self.fake.body(step, request), truncate=step.truncate)

    def _send_json(
        self, status: int, body: Any, headers: tuple[tuple[str, str], ...] = (), truncate: str | None = None
    ) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if truncate:
            self.wfile.write(data[: len(data) // 2])
            self._drop()
            return
        self.wfile.write(data)

    def _send_stream(self, events: list[bytes], truncate: str | None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if truncate:
            events = events[: max(1, len(events) // 2)]
        for event in events:
            self.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
            self.wfile.flush()
        if truncate == "drop":
            self._drop()
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        """Cut the connection the way a crashed proxy would: no terminating chunk, no more bytes."""
        self.wfile.flush()
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


# --- OpenAI ------------------------------------------------------------------------------------


class FakeOpenAIServer(FakeServer):
    """`POST /v1/chat/completions`, JSON or SSE (`stream: true`), with tool-call deltas and usage."""

    vendor = "openai"

    def is_stream(self, request: RecordedRequest) -> bool:
        return bool(request.body.get("stream"))

    def _usage(self, step: Step) -> dict[str, int]:
        total = step.input_tokens + step.output_tokens
        return dict(prompt_tokens=step.input_tokens, completion_tokens=step.output_tokens, total_tokens=total)

    def _envelope(self, request: RecordedRequest, kind: str, **fields: Any) -> dict[str, Any]:
        model = request.body["model"]
        return {"id": "chatcmpl-fake", "object": kind, "created": int(time.time()), "model": model, **fields}

    def body(self, step: Step, request: RecordedRequest) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
        if step.calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
                for c in step.calls
            ]
        finish = "tool_calls" if step.calls else "stop"
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
        choices = [] if step.mangle == "empty_choices" else [choice]
        return self._envelope(request, "chat.completion", choices=choices, usage=self._usage(step))

    def events(self, step: Step, request: RecordedRequest) -> list[bytes]:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return sse(self._envelope(request, "chat.completion.chunk", choices=[choice]))

        out = [chunk({"role": "assistant", "content": ""})]
        out += [chunk({"content": piece}) for piece in pieces(step.text)]
        for index, call in enumerate(step.calls):
            function = {"name": call.name, "arguments": ""}
            head = {"index": index, "id": call.id, "type": "function", "function": function}
            out.append(chunk({"tool_calls": [head]}))
            for piece in pieces(call.arguments_json, 3):
                out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
        out.append(chunk({}, "tool_calls" if step.calls else "stop"))
        if (request.body.get("stream_options") or {}).get("include_usage"):
            usage = self._envelope(request, "chat.completion.chunk", choices=[], usage=self._usage(step))
            out.append(sse(usage))
        out.append(sse("[DONE]"))
        if step.mangle == "empty_choices":
            empty = sse(self._envelope(request, "chat.completion.chunk", choices=[]))
            return [empty, empty, sse("[DONE]")]
        if step.mangle == "bad_json":
            out.insert(1, b'data: {"id": "chatcmpl-fake", "choices": [{"delta": \n\n')
        return out


# --- Anthropic ---------------------------------------------------------------------------------

_ANTHROPIC_ERRORS = {
    401: "authentication_error",
    403: "permission_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


class FakeAnthropicServer(FakeServer):
    """`POST /v1/messages`, JSON or the SSE event stream (message_start ... message_stop)."""

    vendor = "anthropic"

    def is_stream(self, request: RecordedRequest) -> bool:
        return bool(request.body.get("stream"))

    def error_body(self, step: Step) -> dict[str, Any]:
        kind = _ANTHROPIC_ERRORS.get(step.status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": step.message}}

    def _message(
        self, step: Step, request: RecordedRequest, content: list[Any], stop: str | None, output_tokens: int
    ) -> dict[str, Any]:
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": request.body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": step.input_tokens, "output_tokens": output_tokens},
        }

    def body(self, step: Step, request: RecordedRequest) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": step.text}] if step.text else []
        content += [dict(type="tool_use", id=c.id, name=c.name, input=c.arguments) for c in step.calls]
        stop = "tool_use" if step.calls else "end_turn"
        return self._message(step, request, content, stop, step.output_tokens)

    def _blocks(self, step: Step) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
        if step.text:
            deltas: list[dict[str, Any]] = [{"type": "text_delta", "text": p} for p in pieces(step.text)]
            blocks.append(({"type": "text", "text": ""}, deltas))
        for call in step.calls:
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces(call.arguments_json, 3)]
            blocks.append(({"type": "tool_use", "id": call.id, "name": call.name, "input": {}}, deltas))
        return blocks

    def events(self, step: Step, request: RecordedRequest) -> list[bytes]:
        def event(kind: str, **fields: Any) -> bytes:
            return sse({"type": kind, **fields}, kind)

        out = [event("message_start", message=self._message(step, request, [], None, 1)), event("ping")]
        for index, (block, deltas) in enumerate(self._blocks(step)):
            out.append(event("content_block_start", index=index, content_block=block))
            out += [event("content_block_delta", index=index, delta=d) for d in deltas]
            out.append(event("content_block_stop", index=index))
        stop = {"stop_reason": "tool_use" if step.calls else "end_turn", "stop_sequence": None}
        out.append(event("message_delta", delta=stop, usage={"output_tokens": step.output_tokens}))
        out.append(event("message_stop"))
        return out


# --- Gemini ------------------------------------------------------------------------------------

_GEMINI_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


class FakeGeminiServer(FakeServer):
    """`POST /{version}/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`."""

    vendor = "gemini"

    def is_stream(self, request: RecordedRequest) -> bool:
        return request.path.endswith(":streamGenerateContent")

    def error_body(self, step: Step) -> dict[str, Any]:
        status = _GEMINI_STATUSES.get(step.status, "UNKNOWN")
        details = list(step.details)
        return {"error": {"code": step.status, "message": step.message, "status": status, "details": details}}

    def _chunk(self, parts: list[Any], last: Step | None, request: RecordedRequest) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        model = request.path.rsplit("/", 1)[-1].split(":", 1)[0]
        body: dict[str, Any] = {"candidates": [candidate], "modelVersion": model}
        if last is not None:  # the last chunk carries the finish reason and the usage
            candidate["finishReason"] = "STOP"
            total = last.input_tokens + last.output_tokens
            body["usageMetadata"] = {
                "promptTokenCount": last.input_tokens,
                "candidatesTokenCount": last.output_tokens,
                "totalTokenCount": total,
            }
        return body

    def _call_parts(self, step: Step) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        for call in step.calls:
            parts.append({"functionCall": {"name": call.name, "args": call.arguments}})
            if call.signature:
                parts[-1]["thoughtSignature"] = call.signature
        return parts

    def body(self, step: Step, request: RecordedRequest) -> dict[str, Any]:
        parts = ([{"text": step.text}] if step.text else []) + self._call_parts(step)
        return self._chunk(parts, step, request)

    def events(self, step: Step, request: RecordedRequest) -> list[bytes]:
        chunks = [[{"text": p}] for p in pieces(step.text)] + ([self._call_parts(step)] if step.calls else [])
        chunks = chunks or [[{"text": ""}]]
        out = [sse(self._chunk(parts, None, request)) for parts in chunks[:-1]]
        out.append(sse(self._chunk(chunks[-1], step, request)))
        return out
