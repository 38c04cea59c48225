"""Local tracing: what one turn spent its time on, as spans written to the data dir and never sent anywhere.

A turn's `TurnTrace` collects spans (`{name, start, duration_ms, attributes}`): the pipeline's stages, the
retrieval of each collection, the prompt's sections, each model call with its tokens, each tool call. The
orchestrator makes the trace and hands it to the `TraceLog` when the turn ends (`trace show TURN_ID`).

Deep layers (memory's per-collection search runs in worker threads) add spans with `span(...)` without a
trace being passed down to them: the orchestrator makes the turn's trace current with `tracing(trace)`
around the work it awaits, and a `ContextVar` carries it, as OpenTelemetry's context does; asyncio tasks and
`asyncio.to_thread` copy it. The variable holds no state of its own (each task sees its own value) and,
outside a traced turn, `span` does nothing but yield.

OpenTelemetry's SDK was considered: it would bring a provider, processors and an exporter for what is a list
of spans per turn written as one JSON line, and its context would need the same care, so the spans are kept
here, in the same shape (name, start, duration, attributes).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.events import RunEvent, ToolCallEnded, UsageUpdate

_CURRENT: ContextVar[TurnTrace | None] = ContextVar("daemon_turn_trace", default=None)
TRACE_DIR = "traces"
_FILE = "traces.jsonl"


@dataclass
class Span:
    """One timed piece of a turn; `start` is epoch seconds, `attributes` plain JSON values."""

    name: str
    start: float
    duration_ms: float = 0.0
    attributes: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "start": round(self.start, 6),
            "duration_ms": round(self.duration_ms, 3),
            "attributes": self.attributes,
        }


@dataclass
class TurnTrace:
    """The spans of one turn, in the order they ended (from several threads: appends are locked)."""

    turn_id: str
    session_id: str
    spans: list[Span] = field(default_factory=list)
    started: float = field(default_factory=time.time)
    written: bool = False  # the orchestrator writes a trace once, whichever way the turn ended
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, span: Span) -> None:
        with self._lock:
            self.spans.append(span)

    def record(self, name: str, start: float, duration_ms: float, **attributes: Any) -> None:
        """A span measured elsewhere (a model call timed from the events that bound it)."""
        self.add(Span(name, start, duration_ms, attributes))

    @contextmanager
    def span(self, name: str, **attributes: Any) -> Iterator[Span]:
        """Time the body as a span of this trace; the body may add attributes to the span it gets."""
        opened = Span(name, time.time(), 0.0, dict(attributes))
        began = time.perf_counter()
        try:
            yield opened
        finally:
            opened.duration_ms = (time.perf_counter() - began) * 1000
            self.add(opened)

    def to_json(self) -> dict[str, Any]:
        with self._lock:
            spans = sorted(self.spans, key=lambda s: s.start)
        return {"turn_id": self.turn_id, "session_id": self.session_id, "spans": [s.to_json() for s in spans]}


@contextmanager
def tracing(trace: TurnTrace | None) -> Iterator[None]:
    """Make `trace` the current one for the body (which must not yield to a consumer: the variable is set
    and reset in the same task step sequence)."""
    token = _CURRENT.set(trace)
    try:
        yield
    finally:
        _CURRENT.reset(token)


@contextmanager
def span(name: str, **attributes: Any) -> Iterator[Span | None]:
    """A span of the current turn's trace; outside a traced turn, nothing (it yields None)."""
    trace = _CURRENT.get()
    if trace is None:
        yield None
        return
    with trace.span(name, **attributes) as opened:
        yield opened


class RunSpans:
    """Model and tool spans read from an agent run's events: a model call spans from the run's start (or
    the last tool result) to its usage report; a tool call is timed by the loop (`elapsed_ms`)."""

    def __init__(self, trace: TurnTrace | None) -> None:
        self._trace = trace
        self._since = time.time()

    def observe(self, event: RunEvent) -> None:
        if self._trace is None:
            return
        now = time.time()
        if isinstance(event, UsageUpdate):
            usage = event.call
            attributes = {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
            self._trace.record("model.call", self._since, (now - self._since) * 1000, **attributes)
            self._since = now
        elif isinstance(event, ToolCallEnded):
            elapsed = event.elapsed_ms
            self._trace.record(
                f"tool.{event.call.name}",
                now - elapsed / 1000,
                elapsed,
                ok=event.ok,
                output_chars=len(event.output),
            )
            self._since = now


class TraceLog:
    """Traces as JSON lines in `<data dir>/traces/traces.jsonl`, rotated past `max_bytes` into
    `traces.1.jsonl` … `traces.<keep>.jsonl` (the oldest dropped: traces are diagnostics, not the user's
    words; the journal keeps the turns themselves)."""

    def __init__(self, folder: Path, *, max_bytes: int = 5_000_000, keep: int = 3) -> None:
        self.folder = folder
        self._max_bytes = max_bytes
        self._keep = keep
        self._lock = threading.Lock()

    @property
    def current(self) -> Path:
        return self.folder / _FILE

    def write(self, trace: TurnTrace) -> None:
        """Append one turn's trace (one line), rotating first when the file is full."""
        line = (json.dumps(trace.to_json(), ensure_ascii=False, default=str) + "\n").encode("utf-8")
        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            if self.current.exists() and self.current.stat().st_size + len(line) > self._max_bytes:
                self._rotate()
            fd = os.open(self.current, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)

    def _rotate(self) -> None:
        oldest = self.folder / f"traces.{self._keep}.jsonl"
        oldest.unlink(missing_ok=True)
        for index in range(self._keep - 1, 0, -1):
            older = self.folder / f"traces.{index}.jsonl"
            if older.exists():
                os.replace(older, self.folder / f"traces.{index + 1}.jsonl")
        os.replace(self.current, self.folder / "traces.1.jsonl")

    def files(self) -> list[Path]:
        """The trace files, newest first."""
        rotated = [self.folder / f"traces.{i}.jsonl" for i in range(1, self._keep + 1)]
        return [p for p in [self.current, *rotated] if p.exists()]

    def latest(self) -> dict[str, Any] | None:
        """The trace written last, or None."""
        for path in self.files():
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            for line in reversed(lines):
                try:
                    return dict(json.loads(line))
                except json.JSONDecodeError:
                    continue
        return None

    def find(self, turn_id: str) -> dict[str, Any] | None:
        """The trace of one turn (the newest if written twice), or None."""
        wanted = f'"turn_id": {json.dumps(turn_id)}'
        for path in self.files():
            found = None
            with path.open(encoding="utf-8", errors="replace") as lines:
                for line in lines:
                    if wanted in line:
                        try:
                            found = json.loads(line)
                        except json.JSONDecodeError:  # a line cut by a crash mid-write
                            continue
            if found is not None:
                return found
        return None
