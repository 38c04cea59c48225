"""`core.ports.FactPort` over the fact store: verify a turn's facts, keep them, mirror them for retrieval.

SQLite holds the truth (status, truth score, history); the `facts` collection holds a copy of each fact's
sentence and status so the normal search path finds facts and ranks superseded ones down. The copy is
refreshed after each change and rebuilt at start-up when it drifted (a crash between the two writes).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from core.ports import ExtractedFact, FactChange, FactOutcome, FactView, TurnRecord
from core.relations import canonical_relation, normalize
from memory.facts.changes import as_change, back_again
from memory.facts.claims import CLAIMS_FILE, ClaimIndex, DocStaleness
from memory.facts.implications import widen
from memory.facts.model import CURRENT, PRONOUNS, Candidate, StoredFact, subject_key
from memory.facts.object_types import ObjectTypes
from memory.facts.profile import profile_facts
from memory.facts.references import corrected, is_pronoun, is_value_swap, resolve
from memory.facts.store import FACTS_FILE, FactStore
from memory.facts.truth import read_truth
from memory.facts.updates import UpdateReader
from memory.facts.verification import Adjudicator, FactVerifier, Verdict
from memory.service import MemoryService
from memory.vector_store import Metadata, Record

logger = logging.getLogger(__name__)

FACTS_COLLECTION = "facts"
_LEARNED = frozenset({Verdict.STORE, Verdict.STORE_AND_FLAG, Verdict.RETRACT})
Index = Callable[[Sequence[Record]], None]
Restamp = Callable[[str, Mapping[str, Mapping[str, object]]], object]  # collection, {id: metadata changes}


class FactMemory:
    """Verified facts for the orchestrator (record) and the front ends (list)."""

    def __init__(
        self,
        store: FactStore,
        verifier: FactVerifier,
        *,
        index: Index | None = None,
        claims: ClaimIndex | None = None,
        restamp: Restamp | None = None,
        updates: UpdateReader | None = None,
    ) -> None:
        """`updates` reads a correction against the current facts ("he's at Microsoft" after "my husband
        works at Google"); none: only what the extractor read is recorded."""
        self._store = store
        self._updates = updates
        self._verifier = verifier
        self._index = index
        self._claims = claims
        self._restamp = restamp

    async def record(
        self,
        facts: Sequence[ExtractedFact],
        turn: TurnRecord,
        *,
        correcting: bool = False,
        previous_reply: str = "",
    ) -> FactOutcome:
        """Verify each fact against what is current and apply the turn's decisions in one transaction.
        A message that only agrees with the previous reply ("yes, that's right") confirms the facts that
        reply stated. A turn applied before (a retry after a crash) changes nothing."""
        if await asyncio.to_thread(self._store.was_applied, turn.turn_id):
            return FactOutcome()
        # what is current before this turn: whom "her" means, which partner role or workplace a fact ends
        known = await asyncio.to_thread(self._store.facts, CURRENT)
        if self._updates is not None and known:
            facts = with_updates(facts, await asyncio.to_thread(self._updates.read, turn.user, known))
        if not facts:
            if previous_reply and is_confirmation(turn.user):
                await asyncio.to_thread(self._confirm_mentioned, turn, previous_reply)
            return FactOutcome()
        decisions = []
        for fact in facts:
            source = "corrected" if correcting or fact.replaces else "user_stated"
            candidate = Candidate.from_extracted(fact, source=source)
            if is_pronoun(candidate) or is_value_swap(candidate):
                resolved = _resolved(candidate, known, turn.user)
                if resolved is None:
                    continue
                candidate = resolved
                # what the graph learns is the fact as resolved ("Ana lives in Leeds", not "she")
                fact = replace(
                    fact, subject=candidate.subject, predicate=candidate.relation, replaces=candidate.replaces
                )
            current = await asyncio.to_thread(self._store.current, candidate.subject_key, candidate.relation)
            decision = await self._verifier.decide(candidate, current, known)
            decision = await asyncio.to_thread(widen, candidate, decision, known, self._store.current)
            candidate, decision = as_change(candidate, decision)
            decision = back_again(candidate, decision, known)
            logger.debug("fact %s: %s (%s)", candidate.id, decision.verdict, decision.reason)
            decisions.append((fact, candidate, decision))
        applied = await asyncio.to_thread(self._store.apply, turn.turn_id, [(c, d) for _, c, d in decisions])
        await asyncio.to_thread(self._mirror, applied.changed, turn)
        await asyncio.to_thread(self._cascade, applied.superseded)
        learned = tuple(fact for fact, _, decision in decisions if decision.verdict in _LEARNED)
        return FactOutcome(learned, tuple(view(f) for f in applied.superseded))

    def _confirm_mentioned(self, turn: TurnRecord, reply: str) -> None:
        known = profile_facts(self._store.facts(CURRENT), turn.created_at)
        mentioned = [f.id for f in known if mentions(reply, f.object)]
        if mentioned:
            self._mirror(self._store.confirm(turn.turn_id, mentioned), turn)

    def set_current(self, fact_id: str, current: bool, reason: str) -> bool:
        """Retire or reinstate a fact by the user's decision (kept either way); False if unknown."""
        fact = self._store.set_current(fact_id, current, reason)
        if fact is None:
            return False
        if self._index is not None:
            self._index([to_record(fact)])
        if not current:
            self._cascade([fact])
        return True

    def was_applied(self, turn_id: str) -> bool:
        """Whether a turn's facts were already recorded (live or by a session-end step)."""
        return self._store.was_applied(turn_id)

    def list_facts(self, status: str | None = None) -> list[FactView]:
        return [view(fact) for fact in self._store.facts(status)]

    def profile(self, now: float) -> list[FactView]:
        """The prompt's profile: current facts about the user, with their truth as read at `now`."""
        return [
            replace(view(f), truth=read_truth(f.truth, f.last_confirmed_at, now))
            for f in profile_facts(self._store.facts(CURRENT), now)
        ]

    def repair_index(self, indexed: int) -> int:
        """Re-copy every fact into the collection when its count (`indexed`) differs from the store's."""
        facts = self._store.facts()
        if self._index is None or indexed == len(facts):
            return 0
        self._index([to_record(fact) for fact in facts])
        return len(facts)

    def changes_since(self, at: float | None) -> list[FactChange]:
        """What the store changed after `at` (everything when None), oldest first, as the knowledge graph
        learns it: a fact stored, confirmed or reinstated after `at` is stated, one superseded after `at`
        is retired (a retirement first when both happened at once: a correction)."""
        since = float("-inf") if at is None else at
        changes = []
        for fact in self._store.facts():
            stated = _stated(fact)
            if fact.created_at > since:
                changes.append(FactChange(stated, fact.turn_id, fact.created_at))
            if fact.superseded_at is not None and fact.superseded_at > since:
                retired = replace(stated, negated=True)
                changes.append(FactChange(retired, fact.superseded_by or fact.turn_id, fact.superseded_at))
            if fact.is_current and fact.last_confirmed_at > max(fact.created_at, since):
                changes.append(FactChange(stated, fact.turn_id, fact.last_confirmed_at))
        return sorted(changes, key=lambda change: (change.at, not change.fact.negated))

    def facts_of_turns(self, turn_ids: Sequence[str]) -> list[StoredFact]:
        """Facts first stated in these turns (what a summary of them relies on)."""
        wanted = set(turn_ids)
        return [fact for fact in self._store.facts() if fact.turn_id in wanted]

    def register_claims(self, doc_id: str, collection: str, fact_ids: Sequence[str]) -> DocStaleness | None:
        """Record what a summary or reflection relies on; its staleness starts with what is already stale."""
        if self._claims is None:
            return None
        staleness = self._claims.register(doc_id, collection, fact_ids)
        superseded = [f.id for f in map(self._store.get, fact_ids) if f is not None and not f.is_current]
        if superseded:  # written from facts that were already replaced: stale from the start
            changed = self._claims.mark_stale(superseded, at=self._store_now())
            staleness = next((d for d in changed if d.doc_id == doc_id), staleness)
        return staleness

    def _cascade(self, superseded: Sequence[StoredFact]) -> None:
        """Mark the claims on superseded facts stale and restamp the documents that cite them."""
        if self._claims is None or not superseded:
            return
        at = max((f.superseded_at or 0.0) for f in superseded)
        changed = self._claims.mark_stale([f.id for f in superseded], at=at)
        by_collection: dict[str, dict[str, Mapping[str, object]]] = {}
        for doc in changed:
            by_collection.setdefault(doc.collection, {})[doc.doc_id] = doc.metadata()
        for collection, updates in by_collection.items():
            if self._restamp is not None:
                try:
                    self._restamp(collection, updates)
                except Exception:  # noqa: BLE001 - the claim index keeps the truth; the copy can lag
                    logger.exception("could not restamp %d stale document(s) in %s", len(updates), collection)

    def _store_now(self) -> float:
        return self._store.now()

    def _mirror(self, changed: Sequence[StoredFact], turn: TurnRecord) -> None:
        if self._index is None or not changed:
            return
        try:
            self._index([to_record(fact, session_id=turn.session_id) for fact in changed])
        except Exception:  # noqa: BLE001 - SQLite has the facts; start-up repair re-copies them
            logger.exception("could not copy %d fact(s) into the facts collection", len(changed))


def _stated(fact: StoredFact) -> ExtractedFact:
    return ExtractedFact(
        subject=fact.subject,
        predicate=fact.relation,
        object=fact.object,
        category=fact.category,
        scope=fact.scope,
        excerpt=fact.excerpt,
        confidence=fact.confidence,
    )


def _resolved(candidate: Candidate, known: Sequence[StoredFact], message: str) -> Candidate | None:
    """Whom a pronoun means ("we ended up calling her Pepper"), which fact a bare correction corrects
    ("sorry, I meant Tucson"); None when nothing known fits."""
    if is_pronoun(candidate):
        return resolve(candidate, known, message)
    return corrected(candidate, known)


def with_updates(facts: Sequence[ExtractedFact], updates: Sequence[ExtractedFact]) -> list[ExtractedFact]:
    """The extractor's facts with the corrections read against what is known. Where the extractor read a
    value for the same subject and relation ("my manager's name is Brigid"), its value stands and names
    the value it replaces; the correction's own value is used only where the extractor read none."""
    said = {(canonical_relation(u.predicate)[0], normalize(u.object)) for u in updates}
    # "she's a dental hygienist": the correction has already said whom "she" means
    out = [
        f
        for f in facts
        if not (
            f.subject.lower() in PRONOUNS
            and (canonical_relation(f.predicate)[0], normalize(f.object)) in said
        )
    ]
    for update in updates:
        slot = (subject_key(update.subject), canonical_relation(update.predicate)[0])
        same = [
            i
            for i, f in enumerate(out)
            if (subject_key(f.subject), canonical_relation(f.predicate)[0]) == slot
        ]
        if not same:
            out.append(update)
        for i in same:
            if not out[i].negated and normalize(out[i].object) != normalize(update.replaces or ""):
                out[i] = replace(out[i], replaces=out[i].replaces or update.replaces)
    return out


def open_fact_memory(
    data_dir: Path,
    memory: MemoryService,
    adjudicator: Adjudicator | None = None,
    types: ObjectTypes | None = None,
    updates: UpdateReader | None = None,
    clock: Callable[[], float] = time.time,
) -> tuple[FactMemory, Callable[[], None]]:
    """Verified facts in `facts.sqlite3` of the data dir, copied into the `facts` collection, with the claim
    index of the documents that rely on them; and the function that closes both files. `types` checks that
    each fact's object fits its relation (none: no type check); `updates` reads corrections against the
    current facts; `clock` dates what is told (the journal's, so a fact is told when its turn was)."""
    store, claims = FactStore(data_dir / FACTS_FILE, clock=clock), ClaimIndex(data_dir / CLAIMS_FILE)
    verifier = FactVerifier(adjudicator, types=types)
    facts = FactMemory(
        store,
        verifier,
        index=lambda records: memory.add(FACTS_COLLECTION, records),
        claims=claims,
        restamp=memory.update_metadata,
        updates=updates,
    )
    # a crash between the two writes; counted from the index, so no collection has to load for it
    facts.repair_index(memory.indexed_count(FACTS_COLLECTION))

    def close() -> None:
        claims.close()
        store.close()

    return facts, close


_CONFIRMATION = re.compile(
    r"^\s*(yes|yeah|yep|yup|correct|exactly|right|that'?s (right|correct|true)|true|indeed)\b[\s!.,]*"
    r"(that'?s (right|correct|it)|you got it|spot on)?[\s!.]*$",
    re.IGNORECASE,
)


def is_confirmation(text: str) -> bool:
    """A short message that only agrees ("yes, that's right", "exactly!")."""
    return len(text.split()) <= 6 and bool(_CONFIRMATION.match(text))


def mentions(text: str, value: str) -> bool:
    """Whether `value` appears in `text` as whole words, ignoring case and punctuation."""
    wanted = normalize(value)
    return bool(wanted) and f" {wanted} " in f" {normalize(text)} "


def view(fact: StoredFact) -> FactView:
    return FactView(
        fact.id,
        fact.subject,
        fact.relation,
        fact.object,
        fact.status,
        round(fact.truth, 4),
        fact.category,
        fact.turn_id,
        fact.superseded_by,
        fact.reason,
        fact.created_at,
    )


def to_record(fact: StoredFact, *, session_id: str | None = None) -> Record:
    """The `facts` collection record of a fact: its sentence, status and provenance."""
    meta: Metadata = {
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
