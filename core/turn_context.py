"""Everything one turn knows before the model runs (core/prompt turns it into the prompt).

Order per turn: recent history → offline analysis (intent refined by the short-term context, tone, topics)
→ LLM refinement when a capable model is configured (retrieval query, topics, relation; bounded) → the
escalation state → knowledge-graph context → memory recall with the graph's names and boost → the newest
summaries, threads and proposals the intent's sections show → the user profile. Every source is optional
and a failing one is logged and skipped: a turn is answered with whatever context could be had.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from core.pipeline.analyzer import Analysis, ContextAnalyzer
from core.pipeline.escalation import EscalationDirective, EscalationStore
from core.pipeline.rewrite import LlmRefiner
from core.pipeline.short_term import ShortTermMemory, ShortTermSummary
from core.ports import (
    ConversationLog,
    FactPort,
    FactView,
    GraphContext,
    KnowledgePort,
    MemoryPort,
    RecalledMemory,
    TurnRecord,
)
from core.prompt.sections import sections_for

logger = logging.getLogger(__name__)

STALE_PREFIX = "[HISTORICAL -- PARTIALLY OUTDATED]"  # a summary some of whose facts were superseded since
SUPERSEDED_PREFIX = "[NO LONGER TRUE]"  # a fact replaced by a newer one (kept as history)


class JournalHistory:
    """The session's most recent turns from the journal."""

    def __init__(self, log: ConversationLog, recent_turns: int) -> None:
        self._log = log
        self._recent_turns = recent_turns

    def history_for(self, session_id: str, query: str) -> list[TurnRecord]:
        return self._log.recent_turns(session_id, self._recent_turns)

    def last_active_before(self, session_id: str) -> float | None:
        """When another session was last active (the user's previous conversation), if any."""
        others = [s.last_active_at for s in self._log.sessions() if s.session_id != session_id and s.turns]
        return max(others) if others else None


@dataclass(frozen=True)
class TurnContext:
    """What the model is given for one message (besides the system prompt)."""

    text: str
    history: tuple[TurnRecord, ...] = ()
    analysis: Analysis | None = None
    directive: EscalationDirective | None = None
    graph: GraphContext = GraphContext()
    memories: tuple[RecalledMemory, ...] = ()
    short_term: ShortTermSummary = ShortTermSummary()
    retrieval_query: str = ""
    profile: tuple[FactView, ...] = ()
    latest: Mapping[str, tuple[RecalledMemory, ...]] = field(default_factory=dict)  # collection -> newest
    now: float = 0.0
    last_session_at: float | None = None  # when the user last talked to Daemon before this session

    @property
    def max_response_tokens(self) -> int | None:
        """The reply length the escalation state asks for (None: the agent's configured maximum)."""
        return self.directive.max_response_tokens if self.directive else None


# section -> (collection, how many, filter): shown by recency, not by relevance to the message
LATEST_SOURCES: Mapping[str, tuple[str, int, Mapping[str, Any] | None]] = MappingProxyType(
    {
        "recent_summaries": ("summaries", 2, None),
        "recent_reflections": ("reflections", 1, None),
        "unresolved_threads": ("threads", 5, {"status": "open"}),
        "proposed_features": ("proposals", 5, {"status": "proposed"}),
    }
)


class ContextGatherer:
    """Builds a `TurnContext` per message; owns the per-session short-term state."""

    def __init__(
        self,
        history: JournalHistory,
        *,
        memory: MemoryPort | None = None,
        recall_limit: int = 6,
        analyzer: ContextAnalyzer | None = None,
        escalation: EscalationStore | None = None,
        knowledge: KnowledgePort | None = None,
        refiner: LlmRefiner | None = None,
        facts: FactPort | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._history = history
        self._memory = memory
        self._recall_limit = recall_limit
        self._analyzer = analyzer
        self._escalation = escalation
        self._knowledge = knowledge
        self._refiner = refiner
        self._facts = facts
        self._clock = clock
        self._short_term = ShortTermMemory()

    async def gather(self, session_id: str, text: str) -> TurnContext:
        history = await asyncio.to_thread(self._history.history_for, session_id, text)
        analysis = await self._analyze(session_id, text, history)
        directive = self._directive(session_id, text, analysis)
        graph = await self._graph_context(text)
        query = with_entity_names(analysis.rewritten_query if analysis else text, graph.entities)
        shown = frozenset(turn.turn_id for turn in history)
        memories = await self._recall(query, session_id, analysis, shown, graph)
        relation = analysis.relation if analysis else "new"
        summary = self._short_term.summary(session_id, relation, exclude=text)
        latest = await self._latest(analysis.intent if analysis else "general")
        previous = await asyncio.to_thread(self._history.last_active_before, session_id)
        return TurnContext(
            text, tuple(history), analysis, directive, graph, memories, summary, query, await self._profile(),
            latest, self._clock(), previous,
        )  # fmt: skip

    async def _latest(self, intent: str) -> dict[str, tuple[RecalledMemory, ...]]:
        """The newest records the intent's sections show whatever the query (recent summaries, open
        threads, pending proposals)."""
        if self._memory is None:
            return {}
        wanted = sections_for(intent)
        out: dict[str, tuple[RecalledMemory, ...]] = {}
        for section, (collection, limit, where) in LATEST_SOURCES.items():
            if section not in wanted:
                continue
            try:
                out[collection] = tuple(await self._memory.latest(collection, limit, where))
            except Exception:  # noqa: BLE001 - one missing section beats no answer
                logger.exception("reading the latest %s failed", collection)
        return out

    async def _profile(self) -> tuple[FactView, ...]:
        if self._facts is None:
            return ()
        try:
            return tuple(await asyncio.to_thread(self._facts.profile, self._clock()))
        except Exception:  # noqa: BLE001 - answering without the profile beats not answering
            logger.exception("reading the user profile failed; answering without it")
            return ()

    def observe_reply(self, session_id: str, question: str, answer: str, status: str) -> None:
        """After a turn: the escalation state sees the reply, the short-term state the open questions."""
        if self._escalation is not None and status == "complete":
            self._escalation.tracker(session_id).observe_reply(answer)
        self._short_term.observe_turn(session_id, question, answer, status)

    async def _analyze(
        self, session_id: str, text: str, history: Sequence[TurnRecord]
    ) -> Analysis | None:
        """Offline analysis (intent refined by the previous turn), then the LLM's refinement if any."""
        if self._analyzer is None:
            return None
        hint = self._short_term.hint(session_id, text)
        analysis = await asyncio.to_thread(self._analyzer.analyze, text, hint)
        if self._refiner is not None:
            refined = await self._refiner.refine(text, history)
            if refined is not None:
                topics = tuple(dict.fromkeys([*refined.topics, *analysis.topics]))
                analysis = replace(
                    analysis, rewritten_query=refined.query, topics=topics, relation=refined.relation
                )
                self._short_term.note_open(session_id, refined.open_questions)
        self._short_term.record(session_id, analysis.intent, analysis.confidence, analysis.topics)
        return analysis

    def _directive(self, session_id: str, text: str, analysis: Analysis | None) -> EscalationDirective | None:
        """Advance the session's escalation state with this message's tone (every turn, every front end)."""
        if analysis is None or self._escalation is None:
            return None
        return self._escalation.tracker(session_id).update_from_message(analysis.tone, text)

    async def _graph_context(self, text: str) -> GraphContext:
        if self._knowledge is None:
            return GraphContext()
        try:
            return await asyncio.to_thread(self._knowledge.context_for, text)
        except Exception:  # noqa: BLE001 - answering without graph context beats not answering
            logger.exception("knowledge-graph lookup failed; answering without it")
            return GraphContext()

    async def _recall(
        self,
        query: str,
        session_id: str,
        analysis: Analysis | None,
        shown: frozenset[str],
        graph: GraphContext,
    ) -> tuple[RecalledMemory, ...]:
        if self._memory is None or self._recall_limit <= 0:
            return ()
        intent, limit = (analysis.intent if analysis else "general"), self._recall_limit
        try:
            found = await self._memory.recall(query, session_id, limit, intent, shown, graph.boost)
        except Exception:  # noqa: BLE001 - answering without memories beats not answering
            logger.exception("memory recall failed; answering without long-term memories")
            return ()
        return tuple(found)


def with_entity_names(text: str, names: Sequence[str]) -> str:
    """The retrieval query: the message plus the names it refers to without saying them ("my sister" ->
    "Jo"), so memories that name the entity are found by what the user meant."""
    missing = [name for name in names if name.lower() not in text.lower()]
    return f"{text} ({', '.join(missing)})" if missing else text
