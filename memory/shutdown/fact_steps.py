"""Session-end steps 2-4: rule facts, model facts and behavioural patterns, all through the fact gate.

Every fact written here goes through the same verification as a live turn (`FactMemory.record`) with a
turn id of its own (`llm:<session>`, `patterns:<session>`), so a re-run after a crash finds the turn
already applied and adds nothing. Facts the gate accepts also reach the knowledge graph via `learn`.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

from core.ports import ExtractedFact, FactExtractor, TurnRecord
from core.text import counted
from memory.facts.service import FactMemory
from memory.shutdown.processor import StepContext, StepSkipped

Learn = Callable[[Sequence[ExtractedFact], str, float], Any]  # KnowledgePort.learn


class ModelFactExtractor(Protocol):
    async def extract(
        self, turns: Sequence[TurnRecord], known: Sequence[tuple[str, str, str]] = ()
    ) -> list[ExtractedFact]: ...


class RuleFactsStep:
    """Re-reads the session's turns with the rule extractor; turns already applied live are skipped, so
    this only repairs turns whose live learning was lost (a crash between the reply and the fact write)."""

    name = "rule_facts"
    needs_llm = False

    def __init__(self, extractor: FactExtractor, facts: FactMemory, learn: Learn | None = None) -> None:
        self._extractor = extractor
        self._facts = facts
        self._learn = learn

    async def run(self, ctx: StepContext) -> dict[str, Any]:
        repaired = learned = 0
        for turn in ctx.turns:
            if turn.status != "complete" or self._facts.was_applied(turn.turn_id):
                continue
            found = self._extractor.extract(turn.user)
            outcome = await self._facts.record(found, turn)
            repaired += 1
            learned += len(outcome.learned)
            if outcome.learned and self._learn is not None:
                await asyncio.to_thread(self._learn, outcome.learned, turn.turn_id, turn.created_at)
        return {"turns_repaired": repaired, "facts": learned}


class LlmFactsStep:
    """A capable model reads the whole session for facts the rules miss; offline there is nothing to add
    beyond the rule facts, and the step says so."""

    name = "llm_facts"
    needs_llm = True

    def __init__(
        self, extractor: ModelFactExtractor | None, facts: FactMemory, learn: Learn | None = None
    ) -> None:
        self._extractor = extractor
        self._facts = facts
        self._learn = learn

    async def run(self, ctx: StepContext) -> dict[str, Any]:
        if self._extractor is None or not ctx.llm_available:
            raise StepSkipped("no capable model configured: the rule facts stand alone")
        answered = [t for t in ctx.turns if t.status == "complete"]
        if not answered:
            raise StepSkipped("no answered turns")
        known = [(f.subject, f.predicate, f.object) for f in self._facts.list_facts("current")][:60]
        found = await self._extractor.extract(answered, known)
        marker = _synthetic_turn(f"llm:{ctx.session_id}", answered[-1])
        outcome = await self._facts.record(found, marker)
        if outcome.learned and self._learn is not None:
            await asyncio.to_thread(self._learn, outcome.learned, marker.turn_id, marker.created_at)
        return {"proposed": len(found), "facts": len(outcome.learned)}


class BehaviouralPatternsStep:
    """When the user usually talks to Daemon, from every session's turns: a pattern needs 3+ sessions and
    60 % of the turns in one part of the day. Stored as a schedule fact, so a new habit supersedes it."""

    name = "behavioural_patterns"
    needs_llm = False

    def __init__(self, all_turns: Callable[[], Sequence[TurnRecord]], facts: FactMemory) -> None:
        self._all_turns = all_turns
        self._facts = facts

    async def run(self, ctx: StepContext) -> dict[str, Any]:
        turns = await asyncio.to_thread(self._all_turns)
        sessions = {t.session_id for t in turns}
        if len(sessions) < 3 or len(turns) < 10:
            history = f"{counted(len(sessions), 'session')}, {counted(len(turns), 'turn')}"
            raise StepSkipped(f"too little history for a pattern ({history})")
        parts = Counter(_part_of_day(t.created_at) for t in turns)
        part, count = parts.most_common(1)[0]
        if count / len(turns) < 0.6:
            return {"patterns": 0, "spread": dict(parts)}
        excerpt = f"{count} of {len(turns)} turns over {len(sessions)} sessions were in the {part}"
        fact = ExtractedFact("user", "usually chats", f"in the {part}", "schedules", "user", excerpt, 0.7)
        marker = _synthetic_turn(f"patterns:{ctx.session_id}", turns[-1])
        outcome = await self._facts.record([fact], marker)
        return {"patterns": len(outcome.learned), "part_of_day": part, "share": round(count / len(turns), 3)}


def _part_of_day(at: float) -> str:
    hour = datetime.fromtimestamp(at).hour
    return "morning" if 5 <= hour < 12 else "afternoon" if hour < 17 else "evening" if hour < 22 else "night"


def _synthetic_turn(turn_id: str, like: TurnRecord) -> TurnRecord:
    """A marker turn for facts a step derived from many turns (the fact store applies each id once)."""
    return TurnRecord(turn_id, like.session_id, "", "", like.created_at)
