"""Local traces: a turn's spans (pipeline stages, retrieval per collection, prompt sections, model calls
with tokens, tool calls, the commit) are written once per turn, found by turn id, and rotated."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Sequence
from pathlib import Path

from core.agent.loop import AgentRunner
from core.events import Done
from core.orchestrator import ModelChoice, Orchestrator
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.providers.fake import ScriptedProvider, Step, text_response, tool_response
from core.tools.builtin import calculator
from core.tools.toolset import Toolset
from core.tracing import TraceLog, TurnTrace, span, tracing
from core.turn_context import ContextGatherer, JournalHistory
from core.types import ToolCall
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.journal import Journal
from memory.port import ConversationMemory
from memory.service import MemoryService
from memory.turn_index import TurnIndexer
from tests.unit.memory.profile_helpers import committed_profiles


def _orchestrator(
    tmp_path: Path, steps: Sequence[Step], log: TraceLog
) -> tuple[Orchestrator, list[Callable[[], None]]]:
    journal = Journal(tmp_path / "journal.sqlite3")
    memory = MemoryService(InMemoryStore(HashingEmbedder(64)), committed_profiles())
    memory.open()
    port = ConversationMemory(memory, TurnIndexer(memory.write_turns, journal))
    runner = AgentRunner(ScriptedProvider(steps), Toolset([calculator]))
    orchestrator = Orchestrator(
        [ModelChoice("scripted", runner)],
        journal,
        ContextGatherer(JournalHistory(journal, 8), memory=port),
        PromptBuilder("SYSTEM", EstimateCounter(), 8000),
        memory=port,
        traces=log,
    )
    return orchestrator, [journal.close, memory.close]


async def _turn(orchestrator: Orchestrator, text: str, session_id: str | None = None) -> Done:
    events = [event async for event in orchestrator.run_turn(text, session_id=session_id)]
    assert isinstance(events[-1], Done)
    return events[-1]


async def test_a_turn_writes_its_spans_once_and_they_are_found_by_its_id(tmp_path: Path) -> None:
    log = TraceLog(tmp_path / "traces")
    steps = [
        text_response("Noted."),
        tool_response(ToolCall("c1", "calculator", {"expression": "6*7"})),
        text_response("It is 42."),
    ]
    orchestrator, close = _orchestrator(tmp_path, steps, log)
    first = await _turn(orchestrator, "I keep bees in Lyon")
    done = await _turn(orchestrator, "what is 6 times 7 for my bees", first.session_id)
    found = log.find(done.turn_id)
    assert found is not None and found["turn_id"] == done.turn_id
    names = [s["name"] for s in found["spans"]]
    for expected in (
        "pipeline.history",
        "pipeline.analyze",
        "pipeline.recall",
        "prompt.build",
        "model.call",
        "tool.calculator",
        "journal.commit",
        "turn",
    ):
        assert expected in names, expected
    assert names.count("model.call") == 2
    by_name = {s["name"]: s for s in found["spans"]}
    assert by_name["retrieval.collection"]["attributes"]["collection"] == "conversations"
    assert by_name["prompt.build"]["attributes"]["sections"]["current_query"] > 0
    assert by_name["model.call"]["attributes"]["input_tokens"] == 10
    assert by_name["tool.calculator"]["attributes"]["ok"] is True
    assert by_name["turn"]["attributes"]["outcome"] == "answer"
    assert all(set(s) == {"name", "start", "duration_ms", "attributes"} for s in found["spans"])
    assert [s["start"] for s in found["spans"]] == sorted(s["start"] for s in found["spans"])
    assert len(log.current.read_text().splitlines()) == 2  # one line per turn
    for closer in close:
        closer()


async def test_a_cancelled_turn_is_traced_as_cancelled(tmp_path: Path) -> None:
    log = TraceLog(tmp_path / "traces")
    orchestrator, close = _orchestrator(tmp_path, [text_response("a long answer " * 20)], log)
    events = orchestrator.run_turn("tell me a story")
    assert isinstance(events, AsyncGenerator)
    async for _ in events:
        break
    await events.aclose()
    (line,) = log.current.read_text().splitlines()
    assert '"outcome": "cancelled"' in line
    for closer in close:
        closer()


def test_spans_outside_a_traced_turn_do_nothing_and_threads_reach_the_turns_trace() -> None:
    with span("nowhere") as nothing:
        assert nothing is None
    trace = TurnTrace("t1", "s1")

    def in_a_worker() -> None:
        with span("worker", side="thread"):
            pass

    async def traced() -> None:
        with tracing(trace):
            await asyncio.to_thread(in_a_worker)

    asyncio.run(traced())
    assert [(s.name, s.attributes) for s in trace.spans] == [("worker", {"side": "thread"})]


def test_the_trace_file_is_rotated_and_the_oldest_dropped(tmp_path: Path) -> None:
    log = TraceLog(tmp_path / "traces", max_bytes=400, keep=2)
    for number in range(12):
        trace = TurnTrace(f"turn-{number}", "s")
        trace.record("turn", 0.0, 1.0, padding="x" * 100)
        log.write(trace)
    assert [p.name for p in log.files()] == ["traces.jsonl", "traces.1.jsonl", "traces.2.jsonl"]
    assert all(p.stat().st_size <= 400 for p in log.files())
    assert log.find("turn-11") is not None
    assert log.find("turn-0") is None  # rotated out
