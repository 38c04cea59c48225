"""`core.ports.FactPort` over the fact store: verify a turn's facts, keep them, mirror them for retrieval.

SQLite holds the truth (status, truth score, history); the `facts` collection holds a copy of each fact's
sentence and status so the normal search path finds facts and ranks superseded ones down. The copy is
refreshed after each change and rebuilt at start-up when it drifted (a crash between the two writes).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from core.ports import ExtractedFact, FactOutcome, FactView, TurnRecord
from memory.facts.model import Candidate, StoredFact
from memory.facts.store import FactStore
from memory.facts.verification import FactVerifier, Verdict
from memory.vector_store import Record

logger = logging.getLogger(__name__)

FACTS_COLLECTION = "facts"
_LEARNED = frozenset({Verdict.STORE, Verdict.STORE_AND_FLAG, Verdict.RETRACT})
Index = Callable[[Sequence[Record]], None]


class FactMemory:
    """Verified facts for the orchestrator (record) and the front ends (list)."""

    def __init__(self, store: FactStore, verifier: FactVerifier, *, index: Index | None = None) -> None:
        self._store = store
        self._verifier = verifier
        self._index = index

    async def record(
        self, facts: Sequence[ExtractedFact], turn: TurnRecord, *, correcting: bool = False
    ) -> FactOutcome:
        """Verify each fact against what is current and apply the turn's decisions in one transaction.
        A turn applied before (a retry after a crash) changes nothing."""
        if not facts or await asyncio.to_thread(self._store.was_applied, turn.turn_id):
            return FactOutcome()
        decisions = []
        for fact in facts:
            source = "corrected" if correcting or fact.replaces else "user_stated"
            candidate = Candidate.from_extracted(fact, source=source)
            current = await asyncio.to_thread(self._store.current, candidate.subject_key, candidate.relation)
            decision = await self._verifier.decide(candidate, current)
            logger.debug("fact %s: %s (%s)", candidate.id, decision.verdict, decision.reason)
            decisions.append((fact, candidate, decision))
        applied = await asyncio.to_thread(
            self._store.apply, turn.turn_id, [(c, d) for _, c, d in decisions]
        )
        await asyncio.to_thread(self._mirror, applied.changed, turn)
        learned = tuple(fact for fact, _, decision in decisions if decision.verdict in _LEARNED)
        return FactOutcome(learned, tuple(view(f) for f in applied.superseded))

    def list_facts(self, status: str | None = None) -> list[FactView]:
        return [view(fact) for fact in self._store.facts(status)]

    def repair_index(self, indexed: int) -> int:
        """Re-copy every fact into the collection when its count (`indexed`) differs from the store's."""
        facts = self._store.facts()
        if self._index is None or indexed == len(facts):
            return 0
        self._index([to_record(fact) for fact in facts])
        return len(facts)

    def _mirror(self, changed: Sequence[StoredFact], turn: TurnRecord) -> None:
        if self._index is None or not changed:
            return
        try:
            self._index([to_record(fact, session_id=turn.session_id) for fact in changed])
        except Exception:  # noqa: BLE001 - SQLite has the facts; start-up repair re-copies them
            logger.exception("could not copy %d fact(s) into the facts collection", len(changed))


def view(fact: StoredFact) -> FactView:
    return FactView(
        fact.id, fact.subject, fact.relation, fact.object, fact.status, round(fact.truth, 4), fact.category,
        fact.turn_id, fact.superseded_by, fact.reason,
    )  # fmt: skip


def to_record(fact: StoredFact, *, session_id: str | None = None) -> Record:
    """The `facts` collection record of a fact: its sentence, status and provenance."""
    meta: dict[str, object] = {
        "subject": fact.subject,
        "predicate": fact.relation,
        "object": fact.object,
        "status": fact.status,
        "confidence": fact.confidence,
        "truth": fact.truth,
        "scope": fact.scope,
        "source": "turn",
        "source_turn_id": fact.turn_id,
        "source_excerpt": fact.excerpt,
        "created_at": fact.created_at,
        "last_confirmed_at": fact.last_confirmed_at,
    }
    if fact.superseded_by:
        meta["superseded_by"] = fact.superseded_by
    if fact.reason and not fact.is_current:
        meta["superseded_reason"] = fact.reason
    if session_id:
        meta["session_id"] = session_id
    return Record(fact.id, fact.text, meta)
