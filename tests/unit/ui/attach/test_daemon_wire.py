"""The control API's wire format gives back the very objects the running Daemon sent: every run event,
journal turns, facts and search results with their exact scores (the CLI rounds them itself)."""

from __future__ import annotations

from dataclasses import asdict

import pytest

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
from ui.attach.wire import (
    WireError,
    event_line,
    fact_from,
    read_event,
    scored_from,
    scored_payload,
    turn_from,
)

CALL = ToolCall("c1", "web_search", {"query": "Lyon weather", "k": 3})
EVENTS: list[RunEvent] = [
    TextDelta("Bonjour "),
    TextDelta("émoji ✓\n"),
    ToolCallStarted(CALL),
    ToolCallEnded(CALL, False, "timed out", 1234.5),
    ToolProposal(CALL, "Searches the web."),
    UsageUpdate(Usage(10, 2, 0.000123), Usage(30, 9, 0.0004)),
    Progress("compacting", "3 turns"),
    Done(
        "Bonjour",
        "max_rounds",
        Usage(12, 5, 1e-7),
        "echo",
        ({"name": "web_search", "ok": False},),
        ({"marker": "M1", "text": "Jo lives in Denver."},),
        "turn-1",
        "session-1",
        {"answered_by": "memory"},
    ),
    RunError("the model failed", "provider"),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: type(e).__name__)
def test_every_event_comes_back_equal(event: RunEvent) -> None:
    line = event_line(event)
    assert line.endswith(b"\n") and line.count(b"\n") == 1  # one NDJSON line, whatever the text holds
    assert read_event(line) == event


@pytest.mark.parametrize("line", [b"", b"{}", b'{"type": "Nope"}', b'{"type": "TextDelta"}', b"[1]", b"\xff"])
def test_anything_else_is_a_wire_error(line: bytes) -> None:
    with pytest.raises(WireError):
        read_event(line)


def test_turns_and_facts_come_back_equal() -> None:
    turn = TurnRecord("t1", "s1", "hi", "hello", 1796324334.2818644, "complete", "echo", {"a": 1}, [], [], 3)
    fact = FactView("f1", "user", "lives_in", "Lyon", "superseded", 0.8, "place", "t1", "f2", "moved")
    assert turn_from(asdict(turn)) == turn
    assert fact_from(asdict(fact)) == fact


def test_a_search_result_keeps_its_exact_score() -> None:
    item = ScoredMemory("m1", "facts", "Lyon", {"created_at": 1.5}, 0.123512345678, {"dense": 0.98765432101})
    back = scored_from(scored_payload(item))
    assert back == item and back.score == 0.123512345678
