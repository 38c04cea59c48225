"""Ending a session: the eleven steps, run (or resumed) for one session's turns.

Jobs are keyed `<session>#<turn count>`: ending a session twice does nothing the second time, a session
that grew since its last end is processed again (every step writes content-derived ids, so that replaces
rather than duplicates), and work a crash interrupted is found by `resume` at the next start.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from core.ports import ConversationLog, ExtractedFact, FactExtractor, TurnRecord
from core.providers.base import ChatProvider
from memory.dedup import DedupScanner, DedupSettings
from memory.facts.service import FactMemory
from memory.facts.verification import SINGLE_VALUED
from memory.review import ReviewQueue
from memory.service import MemoryService
from memory.shutdown.fact_steps import (
    BehaviouralPatternsStep,
    LlmFactsStep,
    ModelFactExtractor,
    RuleFactsStep,
)
from memory.shutdown.insight_steps import (
    DedupScanStep,
    ImplementationTrackingStep,
    OpenThreadsStep,
    ProceduralSkillsStep,
    ProposalsStep,
)
from memory.shutdown.jobs import JobTable
from memory.shutdown.processor import ShutdownProcessor, Step
from memory.shutdown.reflection import ReflectionStep, SynthesisHookStep
from memory.shutdown.summaries import BlockSummarizer, BlockSummaryStep

JOBS_FILE = "session_jobs.sqlite3"


class SessionEnd:
    """Runs the session-end steps for a session of the journal."""

    def __init__(self, processor: ShutdownProcessor, log: ConversationLog, *, llm_available: bool) -> None:
        self._processor = processor
        self._log = log
        self._llm_available = llm_available

    async def end(self, session_id: str | None = None, stop_by: float | None = None) -> dict[str, Any]:
        """Process one session (default: the most recent one with turns); returns the report. No step
        starts after `stop_by` (the processor's clock)."""
        session_id = session_id or await asyncio.to_thread(self._latest_session)
        if session_id is None:
            return {"session_id": None, "complete": True, "steps": [], "note": "no session has turns yet"}
        turns = await asyncio.to_thread(self._log.turns, session_id)
        if not turns:
            return {"session_id": session_id, "complete": True, "steps": [], "note": "no turns"}
        key = f"{session_id}#{len(turns)}"
        report = await self._processor.run(
            session_id, turns, llm_available=self._llm_available, run_key=key, stop_by=stop_by
        )
        return {**report.to_dict(), "session_id": session_id}

    async def end_active(self, since: float, budget_s: float | None = None) -> list[dict[str, Any]]:
        """Process every session active since `since` (a GUI closing ends the sessions it served); no step
        starts once `budget_s` seconds have passed: the steps not reached are planned and wait for the
        next start (`resume`)."""
        stop_by = self._processor.now() + budget_s if budget_s is not None else None
        sessions = await asyncio.to_thread(self._log.sessions)
        active = [s.session_id for s in sessions if s.last_active_at >= since and s.turns]
        return [await self.end(session_id, stop_by) for session_id in active]

    async def end_idle(
        self, idle_s: float, now: float, *, window_s: float = 86_400.0
    ) -> list[dict[str, Any]]:
        """End the sessions of the last `window_s` that have been quiet for `idle_s` (a GUI left open).
        A session already processed at its current size does nothing."""
        sessions = await asyncio.to_thread(self._log.sessions)
        quiet = [
            s.session_id for s in sessions if s.turns and now - window_s <= s.last_active_at <= now - idle_s
        ]
        reports = [await self.end(session_id) for session_id in quiet]
        return [r for r in reports if any(step.get("ran") for step in r.get("steps", []))]

    async def resume(self) -> list[dict[str, Any]]:
        """Finish session-end work a crash interrupted (run at start-up)."""
        reports = await self._processor.resume_all(self._turns_of_key, llm_available=self._llm_available)
        return [report.to_dict() for report in reports]

    def _turns_of_key(self, key: str) -> Sequence[TurnRecord]:
        return self._log.turns(key.split("#", 1)[0])

    def _latest_session(self) -> str | None:
        with_turns = [s for s in self._log.sessions() if s.turns]
        return max(with_turns, key=lambda s: s.last_active_at).session_id if with_turns else None


def open_session_end(
    data_dir: Path, log: ConversationLog, steps: Sequence[Step], *, llm_available: bool
) -> tuple[SessionEnd, Callable[[], None]]:
    """Session-end processing over `steps`, its job table in the data dir; and what closes that table."""
    jobs = JobTable(data_dir / JOBS_FILE)
    processor = ShutdownProcessor(steps, jobs, step_timeout_s=120.0)
    return SessionEnd(processor, log, llm_available=llm_available), jobs.close


def build_steps(
    memory: MemoryService,
    facts: FactMemory,
    log: ConversationLog,
    extractor: FactExtractor,
    *,
    model: ChatProvider | None = None,
    model_facts: ModelFactExtractor | None = None,
    learn: Callable[[Sequence[ExtractedFact], str, float], Any] | None = None,
    tone: Callable[[str], str] | None = None,
    review: ReviewQueue | None = None,
    skills: Callable[[str, Sequence[str]], Any] | None = None,
    synthesize: Callable[[str], Awaitable[dict[str, Any]]] | None = None,
) -> list[Step]:
    """The eleven session-end steps in their order (the dedup scan needs the review queue; `skills`
    writes a learned skill into the skills folder; `synthesize` is a bounded synthesis run, when the
    user turned it on)."""
    add, restamp = memory.add, memory.update_metadata
    dedup: list[Step] = []
    if review is not None:
        settings = DedupSettings(contradiction_predicates=frozenset(SINGLE_VALUED))
        dedup.append(DedupScanStep(DedupScanner(review, settings), review, memory.store))

    def everything(collection: str) -> list[Any]:
        return memory.store.get(collection)

    return [
        # Facts first: the summaries and the reflection register the session's facts as their claims.
        RuleFactsStep(extractor, facts, learn),
        LlmFactsStep(model_facts, facts, learn),
        BlockSummaryStep(add, restamp, facts, BlockSummarizer(model)),
        BehaviouralPatternsStep(lambda: log.turns(None), facts),
        ProceduralSkillsStep(add, skills),
        ProposalsStep(add),
        *dedup,
        OpenThreadsStep(add, everything, restamp),
        ImplementationTrackingStep(everything, restamp),
        SynthesisHookStep(synthesize),
        ReflectionStep(add, restamp, facts, provider=model, tone=tone),
    ]
