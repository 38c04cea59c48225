"""Turn signals: what the orchestrator read of the message reaches the agent's gate and guards, per turn."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import cast

from core.agent.turn_signals import TurnSignals, current_signals, signals_from, with_signals
from core.events import Done, RunEvent
from core.orchestrator import ModelChoice, Orchestrator
from core.pipeline.analyzer import Analysis
from core.ports import FactPort, FactView, GraphContext, RecalledMemory
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import ContextGatherer, JournalHistory, TurnContext
from core.types import Message
from memory.journal import Journal

FACT = FactView("f1", "user", "works_at", "Bluefin Audio", "current", 0.9, "work")


def test_signals_carry_the_reading_and_the_private_text_of_the_context() -> None:
    analysis = Analysis("factual_recall", 0.9, "conversational", 0.0, (), (), "q", speech_act="question")
    memory = RecalledMemory("m1", "conversations", "We talked about the Lisbon trip.", 0.8, 1.0)
    context = TurnContext(
        "where did Priya go?",
        analysis=analysis,
        graph=GraphContext(("Priya",), ("Priya is the user's sister.",)),
        memories=(memory,),
        profile=(FACT,),
    )
    signals = signals_from(context)
    assert (signals.intent, signals.speech_act, signals.entities) == (
        "factual_recall",
        "question",
        ("Priya",),
    )
    assert "We talked about the Lisbon trip." in signals.private_texts
    assert "Priya is the user's sister." in signals.private_texts
    assert any("Bluefin Audio" in text for text in signals.private_texts)


async def seen_by(steps: int) -> AsyncIterator[TurnSignals | None]:
    for _ in range(steps):
        await asyncio.sleep(0)
        yield current_signals()


async def test_signals_are_current_only_inside_the_run_and_per_task() -> None:
    async def consume(name: str) -> list[TurnSignals | None]:
        out: list[TurnSignals | None] = []
        async for value in with_signals(seen_by(3), TurnSignals(intent=name)):
            out.append(value)
            assert current_signals() is None  # between events the caller sees nothing
        return out

    first, second = await asyncio.gather(consume("a"), consume("b"))
    assert [s.intent for s in first if s] == ["a"] * 3 and [s.intent for s in second if s] == ["b"] * 3
    assert current_signals() is None


class SignalAgent:
    """Records the signals current when its run starts."""

    def __init__(self) -> None:
        self.seen: list[TurnSignals | None] = []

    async def run(self, messages: list[Message], **_: object) -> AsyncIterator[RunEvent]:
        self.seen.append(current_signals())
        yield Done(answer="ok")


class Facts:
    def profile(self, now: float) -> list[FactView]:
        return [FACT]


async def test_the_orchestrator_runs_the_agent_with_the_turns_signals(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    agent = SignalAgent()
    facts = cast(FactPort, Facts())  # the gatherer reads `profile` only
    context = ContextGatherer(JournalHistory(journal, 4), facts=facts)
    builder = PromptBuilder("SYS", EstimateCounter(), 4000)
    orchestrator = Orchestrator([ModelChoice("a", agent)], journal, context, builder)
    [_ async for _ in orchestrator.run_turn("hello there")]
    [signals] = agent.seen
    assert signals is not None and any("Bluefin Audio" in text for text in signals.private_texts)
    assert current_signals() is None
    journal.close()
