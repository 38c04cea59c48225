"""The control API's wire format: run events, turns, facts and search results as JSON and back.

The running Daemon (ui/attach/control_routes.py) sends what its orchestrator and stores return; the attached
front end (ui/attach/client.py) rebuilds the same objects, so the CLI renders them with the very functions
it uses on its own stores (ui/terminal/chat.py, ui/terminal/memory.py, ui/terminal/facts.py): one output,
whichever process answered. Floats travel as JSON numbers, which Python writes and reads back exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from core.events import (
    Done,
    Progress,
    RunError,
    RunEvent,
    TextDelta,
    ToolCallEnded,
    ToolCallStarted,
    ToolProposal,
    UsageUpdate,
)
from core.ports import FactView, TurnRecord
from core.types import ToolCall, Usage
from memory.candidates import ScoredMemory

PREFIX = "/daemon"  # where the control routes live on the running process's server
API_VERSION = "v1"


class WireError(ValueError):
    """A line from the running Daemon that is not an event this version knows."""


def event_line(event: RunEvent) -> bytes:
    """One NDJSON line: the event's fields and its type name."""
    body = {"type": type(event).__name__, **asdict(event)}
    return (json.dumps(body, ensure_ascii=False, default=str) + "\n").encode()


def _call(raw: dict[str, Any]) -> ToolCall:
    return ToolCall(str(raw.get("id", "")), str(raw["name"]), dict(raw.get("arguments") or {}))


def _usage(raw: dict[str, Any] | None) -> Usage:
    raw = raw or {}
    return Usage(
        int(raw.get("input_tokens", 0)), int(raw.get("output_tokens", 0)), float(raw.get("cost_usd", 0))
    )


def _done(raw: dict[str, Any]) -> Done:
    return Done(
        answer=raw.get("answer", ""),
        exit_reason=raw.get("exit_reason", "answer"),
        usage=_usage(raw.get("usage")),
        model=raw.get("model", ""),
        tool_calls=tuple(raw.get("tool_calls") or ()),
        citations=tuple(raw.get("citations") or ()),
        turn_id=raw.get("turn_id", ""),
        session_id=raw.get("session_id", ""),
        extra=dict(raw.get("extra") or {}),
    )


_READERS: dict[str, Callable[[dict[str, Any]], RunEvent]] = {
    "TextDelta": lambda r: TextDelta(r["text"]),
    "ToolCallStarted": lambda r: ToolCallStarted(_call(r["call"])),
    "ToolCallEnded": lambda r: ToolCallEnded(_call(r["call"]), bool(r["ok"]), r["output"], r["elapsed_ms"]),
    "ToolProposal": lambda r: ToolProposal(_call(r["call"]), r.get("description", "")),
    "UsageUpdate": lambda r: UsageUpdate(_usage(r["call"]), _usage(r["total"])),
    "Progress": lambda r: Progress(r["stage"], r.get("detail", "")),
    "Done": _done,
    "RunError": lambda r: RunError(r["message"], r.get("kind", "error")),
}


def read_event(line: bytes | str) -> RunEvent:
    """The event an `event_line` carried; `WireError` for anything else."""
    try:
        raw = json.loads(line)
        return _READERS[raw.pop("type")](raw)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise WireError(f"not a run event: {str(line)[:120]!r}") from exc


def turn_from(raw: dict[str, Any]) -> TurnRecord:
    """A journal turn sent as `asdict(TurnRecord)`."""
    return TurnRecord(**raw)


def fact_from(raw: dict[str, Any]) -> FactView:
    """A fact sent as `asdict(FactView)`."""
    return FactView(**raw)


def scored_payload(item: ScoredMemory) -> dict[str, Any]:
    """A search result with its exact score and factors (the CLI rounds them itself)."""
    return {
        "id": item.id,
        "collection": item.collection,
        "text": item.text,
        "metadata": dict(item.metadata),
        "score": item.score,
        "factors": dict(item.factors),
    }


def scored_from(raw: dict[str, Any]) -> ScoredMemory:
    """A search result sent by `scored_payload`."""
    return ScoredMemory(
        raw["id"], raw["collection"], raw["text"], dict(raw["metadata"]), raw["score"], dict(raw["factors"])
    )
