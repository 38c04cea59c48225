"""Everything one turn knows before the model runs (core/prompt turns it into the prompt).

Order per turn: the session's stored state and recent history → offline analysis (intent refined by the
short-term context, tone, topics) → LLM refinement when a capable model is configured (retrieval query,
topics, relation; bounded) → the escalation state after this message → knowledge-graph context → memory
recall with the graph's names and boost → the newest summaries, threads and proposals the intent's sections
show → the user profile. Every source is optional and a failing one is logged and skipped: a turn is
answered with whatever context could be had.

Gathering only reads the session's state (`SessionStateStore`): what the message does to it travels in
`TurnContext.reading`, and only `observe_reply`, which the orchestrator calls when a real turn ends, stores
it. So `prompt` previews and `analyze` show what a turn would see and change nothing.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from core.own_name import in_first_person, user_names
from core.pipeline import session_state
from core.pipeline.analyzer import Analysis, ContextAnalyzer
from core.pipeline.escalation import EscalationConfig, EscalationDirective
from core.pipeline.rewrite import LlmRefiner
from core.pipeline.session_state import InMemorySessionStates, MessageReading
from core.pipeline.short_term import ShortTermSummary
from core.ports import (
    ConversationLog,
    FactPort,
    FactView,
    GraphContext,
    KnowledgePort,
    MemoryPort,
    RecalledMemory,
    SessionState,
    SessionStateStore,
    TurnRecord,
    turn_of,
)
from core.prompt.sections import sections_for
from core.tracing import span

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

    def questions_answered(self, memories: Sequence[RecalledMemory]) -> dict[str, str]:
        """For each conversation memory, the question its message answered: the one the reply before it
        (in the same session) ended on. "Researching adoption agencies." means what "Any plans for the
        summer?" asked."""
        turns = {turn: m.id for m in memories if (turn := turn_of(m.id)) is not None}
        before = self._log.previous_turns(turns)
        asked = {turn: question_asked(record.assistant) for turn, record in before.items()}
        return {turns[turn]: question for turn, question in asked.items() if question}

    def last_active_before(self, session_id: str) -> float | None:
        """When another session was last active (the user's previous conversation), if any."""
        others = [s.last_active_at for s in self._log.sessions() if s.session_id != session_id and s.turns]
        return max(others) if others else None


IMAGE_CAPTION = re.compile(r"\s*\[image: [^\]]*\]")  # what a stored turn says of an image it carried


def question_asked(reply: str) -> str:
    """The question a reply ends on, which the user's next message answers ("…! Any plans for the
    summer?"); "" when its last sentence asks nothing."""
    sentences = re.split(r"(?<=[.!?])\s+", IMAGE_CAPTION.sub("", reply).strip())
    return sentences[-1] if sentences[-1].endswith("?") else ""


@dataclass(frozen=True)
class TurnContext:
    """What the model is given for one message (besides the system prompt)."""

    text: str
    history: tuple[TurnRecord, ...] = ()
    analysis: Analysis | None = None
    directive: EscalationDirective | None = None
    graph: GraphContext = GraphContext()
    memories: tuple[RecalledMemory, ...] = ()  # what the prompt shows
    short_term: ShortTermSummary = ShortTermSummary()
    retrieval_query: str = ""
    profile: tuple[FactView, ...] = ()
    latest: Mapping[str, tuple[RecalledMemory, ...]] = field(default_factory=dict)  # collection -> newest
    now: float = 0.0
    last_session_at: float | None = None  # when the user last talked to Daemon before this session
    reading: MessageReading | None = None  # what the message does to the session's state (stored at turn end)
    session: SessionState = SessionState()  # the session's state as the message leaves it (a preview)
    # `memories` and the next ones down the same ranking: what the offline answerer reads (never the prompt)
    evidence: tuple[RecalledMemory, ...] = ()
    # a conversation memory's id -> the question its message answered (the reply before it ended on it)
    answering: Mapping[str, str] = field(default_factory=dict)

    @property
    def read_evidence(self) -> tuple[RecalledMemory, ...]:
        """The memories an answerer that quotes them may read: `evidence`, else the ones shown."""
        return self.evidence or self.memories

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
    """Builds a `TurnContext` per message from the session's stored state; stores the state a real turn
    leaves (`observe_reply`)."""

    def __init__(
        self,
        history: JournalHistory,
        *,
        memory: MemoryPort | None = None,
        recall_limit: int = 6,
        evidence_limit: int = 0,
        analyzer: ContextAnalyzer | None = None,
        escalation: EscalationConfig | None = None,
        knowledge: KnowledgePort | None = None,
        refiner: LlmRefiner | None = None,
        facts: FactPort | None = None,
        states: SessionStateStore | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`recall_limit`: memories the prompt shows; `evidence_limit`: memories an offline answerer reads,
        the shown ones first (below `recall_limit`: the shown ones only); `escalation`: the FSM's thresholds
        (None: no escalation directive); `states`: where sessions' state is kept between turns (None: in
        this process only)."""
        self._history = history
        self._memory = memory
        self._recall_limit = recall_limit
        self._evidence_limit = max(recall_limit, evidence_limit)
        self._analyzer = analyzer
        self._escalation = escalation
        self._knowledge = knowledge
        self._refiner = refiner
        self._facts = facts
        self._clock = clock
        self._states: SessionStateStore = states if states is not None else InMemorySessionStates()
        # The FSM runs (and its state is kept) with or without `escalation`, which only decides whether
        # its directive reaches the prompt.
        self._fsm = escalation or EscalationConfig()

    async def gather(self, session_id: str, text: str) -> TurnContext:
        """What the model is given for `text` in `session_id`; reads the session's state, stores nothing."""
        with span("pipeline.history"):
            before = await asyncio.to_thread(self.stored_state, session_id)
            history = await asyncio.to_thread(self._history.history_for, session_id, text)
        with span("pipeline.analyze") as analyzed:
            analysis, reading = await self._analyze(before, text, history)
        if analyzed is not None and analysis is not None:
            analyzed.attributes.update(intent=analysis.intent, tone=analysis.tone)
        after = session_state.advance(before, reading, self._fsm) if reading else before
        directive = self._directive(after, analysis)
        with span("pipeline.profile"):
            profile = await self._profile()
        # The user's own name in their message means them: read as "I", it neither finds the lines that
        # address someone else by name nor the graph's node of the user ("What did Dana paint?" asked by
        # Dana is searched as "What did I paint?").
        own = user_names(profile)
        with span("pipeline.graph") as looked_up:
            graph = await self._graph_context(in_first_person(text, own))
        if looked_up is not None:
            looked_up.attributes["entities"] = len(graph.entities)
        query = with_entity_names(
            in_first_person(analysis.rewritten_query if analysis else text, own), graph.entities
        )
        shown = frozenset(turn.turn_id for turn in history)
        with span("pipeline.recall") as recalled:
            evidence = await self._recall(query, session_id, analysis, shown, graph)
        memories = evidence[: self._recall_limit]  # one ranking: the prompt shows its head
        if recalled is not None:
            recalled.attributes["memories"] = len(memories)
        answering = await self._questions_answered(evidence)
        relation = analysis.relation if analysis else "new"
        summary = session_state.summary(after, relation, exclude=text)
        with span("pipeline.latest"):
            latest = await self._latest(analysis.intent if analysis else "general")
            previous = await asyncio.to_thread(self._history.last_active_before, session_id)
        return TurnContext(
            text,
            tuple(history),
            analysis,
            directive,
            graph,
            memories,
            summary,
            query,
            profile,
            latest,
            self._clock(),
            previous,
            reading,
            after,
            evidence,
            answering,
        )

    def stored_state(self, session_id: str) -> SessionState:
        """The session's state as its last turn left it (a fresh one if it has none, or it cannot be read:
        a turn is answered without it rather than not at all)."""
        try:
            return self._states.load(session_id) or SessionState()
        except Exception:  # noqa: BLE001 - answering without the session's state beats not answering
            logger.exception("reading the state of session %s failed; starting it afresh", session_id)
            return SessionState()

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

    async def _questions_answered(self, evidence: Sequence[RecalledMemory]) -> dict[str, str]:
        try:
            return await asyncio.to_thread(self._history.questions_answered, evidence)
        except Exception:  # noqa: BLE001 - the evidence without what it answered beats no answer
            logger.exception("reading the questions the recalled turns answered failed")
            return {}

    async def _profile(self) -> tuple[FactView, ...]:
        if self._facts is None:
            return ()
        try:
            return tuple(await asyncio.to_thread(self._facts.profile, self._clock()))
        except Exception:  # noqa: BLE001 - answering without the profile beats not answering
            logger.exception("reading the user profile failed; answering without it")
            return ()

    def observe_reply(
        self, session_id: str, question: str, answer: str, status: str, reading: MessageReading | None = None
    ) -> None:
        """When a real turn ends (answered, failed or cancelled: the user did say it): store what the message
        (`reading`, None when gathering failed before it) and the reply did to the session's state, in one
        transaction on the latest stored state. A failure is logged: the turn is already in the journal."""

        def change(state: SessionState) -> SessionState:
            if reading is not None:
                state = session_state.advance(state, reading, self._fsm)
            return session_state.settle(state, question, answer, status)

        try:
            self._states.update(session_id, change)
        except Exception:  # noqa: BLE001 - never fail a turn the journal already holds over its side state
            logger.exception("storing the state of session %s failed", session_id)

    async def _analyze(
        self, state: SessionState, text: str, history: Sequence[TurnRecord]
    ) -> tuple[Analysis | None, MessageReading | None]:
        """Offline analysis (intent refined by the previous turn), then the LLM's refinement if any; and
        what the message does to the session's state."""
        if self._analyzer is None:
            return None, None
        hint = session_state.hint(state, text)
        analysis = await asyncio.to_thread(self._analyzer.analyze, text, hint)
        found: tuple[str, ...] = ()
        if self._refiner is not None:
            refined = await self._refiner.refine(text, history)
            if refined is not None:
                topics = tuple(dict.fromkeys([*refined.topics, *analysis.topics]))
                analysis = replace(
                    analysis, rewritten_query=refined.query, topics=topics, relation=refined.relation
                )
                found = tuple(refined.open_questions)
        reading = MessageReading(
            text, analysis.tone, analysis.intent, analysis.confidence, analysis.topics, found, analysis.asks
        )
        return analysis, reading

    def _directive(self, state: SessionState, analysis: Analysis | None) -> EscalationDirective | None:
        """The escalation directive of the state this message leaves the session in (every front end)."""
        if analysis is None or self._escalation is None:
            return None
        return session_state.directive_for(state, self._escalation)

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
        intent, limit = (analysis.intent if analysis else "general"), self._evidence_limit
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
