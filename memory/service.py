"""Long-term memory: writes into the 13 collections and the per-request search path.

search = embed the query once → concurrent per-collection candidates (dense + BM25) → gating (fused
evidence, per-intent threshold, optional reranker) → composite scoring → per-collection limits.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memory.candidates import Candidate, GatedCandidate, QueryContext, ScoredMemory
from memory.collections import COLLECTION_NAMES, COLLECTIONS, CONVERSATIONS
from memory.embeddings import Embedder
from memory.gating import NoReranker, Reranker, gate
from memory.lexical import CONTEXT_VIEW_COLLECTIONS, LexicalIndexes, contextual_text, previous_texts
from memory.payloads import Payloads
from memory.profiles import IntentProfiles
from memory.provenance import provenance
from memory.retrieval import CandidateSource, RetrievalResult, RetrievalSettings, Retriever
from memory.scoring import score
from memory.turn_index import searchable_text
from memory.vector_store import Record, VectorStore

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)


class MemoryService:
    """The memory the orchestrator reaches through `core.ports`; built by the composition root."""

    def __init__(
        self,
        store: VectorStore,
        profiles: IntentProfiles,
        settings: RetrievalSettings | None = None,
        *,
        reranker: Reranker | None = None,
        clock: Callable[[], float] = time.time,
        hidden: Callable[[str], set[str]] | None = None,
        lexical: LexicalIndexes | None = None,
        sources: Mapping[str, CandidateSource] | None = None,
    ) -> None:
        """`lexical` is the (persisted) lexical index the composition root opened; by default one in
        memory only. `sources` answer collections from outside the store (the Wikipedia index as
        `wiki_knowledge`)."""
        self.store = store
        self.embedder: Embedder = store.embedder
        self.profiles = profiles
        self.lexical = lexical or LexicalIndexes()
        self.payloads = Payloads(store.get_with_vectors)
        self.reindexed: dict[str, int] = {}  # collection -> documents the last open() re-indexed
        self.verified = False  # whether the last open() compared the index with the store
        self.settings = settings or RetrievalSettings()
        self.sources: dict[str, CandidateSource] = dict(sources or {})
        self._retriever = Retriever(store, self.lexical, self.payloads, self.settings, sources=sources)
        self._reranker = reranker or NoReranker()
        self._clock = clock
        self._hidden = hidden  # collection -> ids the user hid (approved dedup); never searched
        self._opened = False
        self._in_step = True  # False once a write failed halfway: the store and the index may differ

    def open(self) -> None:
        """Create the collections, restore the lexical indexes and re-index only what they lack.

        After a clean close (its marker names the store's files as they are now and the index sizes as
        loaded) nothing can have changed either, so the index is trusted without reading the store, and
        the collections load in the background. Otherwise (a crash, kill -9, a failed write, a new,
        damaged or stale index file, a store changed by another process, a server) each collection's
        record count is compared with its index: counts can only differ after a crash between the two
        writes, and then the ids are compared and only the difference is re-indexed."""
        self.store.ensure_collections(COLLECTIONS)
        self.lexical.load()
        marker = self.lexical.take_clean_marker()  # gone from here on: a crash leaves none behind
        self._opened, self._in_step, self.reindexed = False, True, {}
        self.verified = not self._trusts(marker)
        if self.verified:
            self._verify()
        else:
            self.store.warm(COLLECTION_NAMES)  # the first search would otherwise pay for the loads
        self._opened = True  # only a completed open may leave a clean marker at close

    def _verify(self) -> None:
        """Compare every collection's record count with its index; reconcile those that differ."""
        counts = self.store.counts()
        for name in COLLECTION_NAMES:
            if counts.get(name, 0) != self.lexical.size(name):
                self.reindexed[name] = self._reconcile(name)
        if self.reindexed:
            logger.info("lexical index brought in step with the store: %s", self.reindexed)

    def _trusts(self, marker: Mapping[str, Any] | None) -> bool:
        """Whether a clean-shutdown marker vouches for the store and the index as they are now."""
        state = self.store.opened_state()
        if marker is None or state is None or marker.get("store") != state:
            return False
        return marker.get("sizes") == self._sizes()

    def _sizes(self) -> dict[str, int]:
        return {name: self.lexical.size(name) for name in COLLECTION_NAMES}

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Around a write to the store and the index: if it fails halfway they may differ, so this
        process will not leave a clean-shutdown marker and the next start compares them."""
        try:
            yield
        except BaseException:
            self._in_step = False
            raise

    def indexed_count(self, collection: str) -> int:
        """Records of one collection as the lexical index holds them: the store's count after `open()`
        (compared, or vouched for by a clean close) and every write since, read without touching the
        store (Chroma loads a collection's vectors on its first read)."""
        return self.lexical.size(collection)

    def _reconcile(self, name: str, batch: int = 5000) -> int:
        """Index the store's records the lexical index lacks and drop those the store no longer holds."""
        records = self.store.get(name)
        known = self.lexical.ids(name)
        gone = known - {r.id for r in records}
        self.lexical.remove(name, gone)
        missing = [r for r in records if r.id not in known]
        previous: dict[str, str | None] = {}
        if name in CONTEXT_VIEW_COLLECTIONS:
            previous = previous_texts([(r.id, r.text, r.metadata) for r in records])
        for start in range(0, len(missing), batch):
            chunk = missing[start : start + batch]
            if name == CONVERSATIONS:
                self.lexical.add(name, ((r.id, *_found_by(r, previous.get(r.id))) for r in chunk))
            else:
                self.lexical.add(name, ((r.id, r.text, previous.get(r.id)) for r in chunk))
        return len(missing) + len(gone)

    # --- writes -------------------------------------------------------------------------------------

    def write_turns(self, records: Sequence[Record]) -> None:
        """Store conversation turns (idempotent by id). Each vector embeds the previous turn of the same
        session with the turn, so a reply like "yes, in May" is found by what it answered."""
        if not records:
            return
        found_by, vectors = self._turn_vectors(records)
        with self._writing():
            self.store.upsert(CONVERSATIONS, records, vectors)
            self.payloads.put(CONVERSATIONS, zip(records, vectors, strict=True))
            self.lexical.add(CONVERSATIONS, ((r.id, *found_by[r.id]) for r in records))

    def vectors_for(self, collection: str, records: Sequence[Record]) -> np.ndarray:
        """The vectors a live write gives these stored records (the store's index rebuild uses them)."""
        if collection == CONVERSATIONS:
            return self._turn_vectors(records)[1]
        return self.embedder.embed([r.text for r in records])

    def _turn_vectors(self, records: Sequence[Record]) -> tuple[dict[str, FoundBy], np.ndarray]:
        """What each turn is found by (a live turn: the user's words) and its vector, which embeds the
        previous turn of the session with it."""
        previous = self._previous_texts(records)
        found_by = {r.id: _found_by(r, previous[r.id]) for r in records}
        vectors = self.embedder.embed(
            [contextual_text(found_by[r.id][1], found_by[r.id][0]) for r in records]
        )
        return found_by, vectors

    def _previous_texts(self, records: Sequence[Record]) -> dict[str, str | None]:
        """Previous turn of each record: from the batch itself, else the latest stored turn of its session."""
        previous = previous_texts([(r.id, r.text, r.metadata) for r in records])
        seen: dict[str, str | None] = {}
        for record in records:
            session = record.metadata.get("session_id")
            if previous[record.id] is not None or not isinstance(session, str):
                continue
            if session not in seen:
                seen[session] = self._latest_before(session, float(record.metadata.get("created_at", 0.0)))
            previous[record.id] = seen[session]
        return previous

    def _latest_before(self, session: str, created_at: float) -> str | None:
        earlier = self.store.get(
            CONVERSATIONS, where={"$and": [{"session_id": session}, {"created_at": {"$lt": created_at}}]}
        )
        if not earlier:
            return None
        return max(earlier, key=lambda r: float(r.metadata.get("created_at", 0.0))).text

    def add(self, collection: str, records: Sequence[Record]) -> None:
        """Store records in a non-conversation collection (facts, documents, summaries, ...)."""
        if collection == CONVERSATIONS:
            self.write_turns(records)
            return
        vectors = self.embedder.embed([r.text for r in records])
        with self._writing():
            self.store.upsert(collection, records, vectors)
            self.payloads.put(collection, zip(records, vectors, strict=True))
            self.lexical.add(collection, ((r.id, r.text, None) for r in records))

    def restore(self, collection: str, records: Sequence[Record], vectors: np.ndarray | None) -> None:
        """Store exported records as they were (idempotent by id): with their own `vectors` when the same
        embedding model made them, else embedded now as a live write would embed them."""
        if vectors is None:
            self.add(collection, records)
            return
        previous = self._previous_texts(records) if collection == CONVERSATIONS else {}
        with self._writing():
            self.store.upsert(collection, records, vectors)
            self.payloads.put(collection, zip(records, vectors, strict=True))
            if collection == CONVERSATIONS:
                self.lexical.add(CONVERSATIONS, ((r.id, *_found_by(r, previous[r.id])) for r in records))
            else:
                self.lexical.add(collection, ((r.id, r.text, None) for r in records))

    def update_metadata(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> int:
        """Merge metadata changes into stored records (text and vector unchanged); returns how many."""
        found = self.store.get_with_vectors(collection, list(updates))
        if not found:
            return 0
        records = [Record(r.id, r.text, {**r.metadata, **updates[r.id]}) for r, _ in found]
        vectors = [vector for _, vector in found]
        import numpy as np

        self.store.upsert(collection, records, np.asarray(vectors))
        self.payloads.put(collection, zip(records, vectors, strict=True))
        return len(records)

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Remove records for good (the explicit purge only): from the store, then from the lexical index
        and the payload mirror, so their text is not found from this moment on (not only after a restart)."""
        with self._writing():
            self.store.delete(collection, ids)
            self.lexical.remove(collection, ids)
            self.payloads.remove(collection, ids)

    # --- reads --------------------------------------------------------------------------------------

    async def search(
        self,
        ctx: QueryContext,
        *,
        collections: Sequence[str] | None = None,
        k: int = 10,
    ) -> list[ScoredMemory]:
        """The best `k` memories for the query, each with the factors of its score."""
        profile = self.profiles.get(ctx.intent)
        limits = dict(profile.limits)
        if collections is not None:
            # An explicit collection list (a tool, `memory search --collection`, a benchmark) asks for up
            # to k results from each named collection, whatever the intent would normally allow.
            limits = {name: max(k, limits.get(name, 0)) for name in collections}
        vector = await asyncio.to_thread(self.embedder.embed_query, ctx.query)
        result = await self._retriever.candidates(ctx.query, vector, limits)
        gated = self._reranker.rerank(ctx.query, gate(self._visible(result.candidates), ctx, profile))
        shortlist = _shortlist(gated, limits, k)
        ranked = score(shortlist, _with_graph_bonus(ctx, shortlist), profile)
        return _cap_per_collection(ranked, limits, k)

    def _visible(self, candidates: Sequence[Candidate]) -> list[Candidate]:
        """Candidates minus the records the user hid (kept in the store until an explicit purge) and the
        tombstones of sources that went away (a deleted note: kept, never searched)."""
        live = [c for c in candidates if c.metadata.get("deleted_at") is None]
        if self._hidden is None:
            return live
        hidden = {name: self._hidden(name) for name in {c.collection for c in live}}
        return [c for c in live if c.id not in hidden[c.collection]]

    async def candidates(self, query: str, collections: Mapping[str, int]) -> RetrievalResult:
        """Raw candidates (no gating or scoring): the baselines of the benchmarks use this."""
        vector = await asyncio.to_thread(self.embedder.embed_query, query)
        return await self._retriever.candidates(query, vector, collections)

    def latest(self, collection: str, limit: int, where: Mapping[str, Any] | None = None) -> list[Record]:
        """The newest `limit` records of a collection matching `where`, newest first; hidden ones and
        tombstones left out."""
        # a store takes its filter as a plain dict (Chroma's `where` type); the caller's mapping is copied
        records = self.store.get(collection, where=dict(where) if where is not None else None)
        hidden = self._hidden(collection) if self._hidden is not None else set()
        visible = [r for r in records if r.id not in hidden and r.metadata.get("deleted_at") is None]
        visible.sort(key=lambda r: float(r.metadata.get("created_at", 0.0)), reverse=True)
        return visible[: max(0, limit)]

    def hidden_ids(self, collection: str) -> set[str]:
        """Ids of the collection's records the user hid (approved dedup): readers leave them out."""
        return set(self._hidden(collection)) if self._hidden is not None else set()

    def stats(self) -> dict[str, int]:
        """Records per collection (all 13, zeros included)."""
        counts = self.store.counts()
        return {name: counts.get(name, 0) for name in COLLECTION_NAMES}

    def neighbours(self, memory_id: str, window: int = 3) -> list[Record]:
        """The turns around a conversation memory in its session, in order (memory expansion)."""
        found = self.store.get(CONVERSATIONS, ids=[memory_id])
        if not found or not isinstance(found[0].metadata.get("session_id"), str):
            return found
        session = self.store.get(CONVERSATIONS, where={"session_id": found[0].metadata["session_id"]})
        session.sort(key=lambda r: (float(r.metadata.get("created_at", 0.0)), int(r.metadata.get("seq", 0))))
        index = next(i for i, r in enumerate(session) if r.id == memory_id)
        return session[max(0, index - window) : index + window + 1]

    def close(self) -> None:
        """Close the store, then, if every write since `open()` reached both the store and the index,
        leave the clean-shutdown marker (the store's files as closed, the index sizes) so the next start
        can skip comparing them; then close the index."""
        clean, self._opened = self._opened and self._in_step, False
        try:
            self.store.close()
            state = self.store.closed_state()
            if clean and state is not None:
                self.lexical.mark_clean({"store": state, "sizes": self._sizes()})
        finally:
            self.lexical.close()


def _shortlist(gated: Sequence[GatedCandidate], limits: Mapping[str, int], k: int) -> list[GatedCandidate]:
    """Per collection, the best-relevance candidates that could still make its limit after bonuses
    (three times the limit): composite scoring then works on a few hundred items, not thousands."""
    by_collection: dict[str, list[GatedCandidate]] = {}
    for item in gated:
        by_collection.setdefault(item.candidate.collection, []).append(item)
    keep: list[GatedCandidate] = []
    for name, items in by_collection.items():
        items.sort(key=lambda g: g.relevance, reverse=True)
        keep.extend(items[: max(10, 3 * limits.get(name, k))])
    return keep


def _with_graph_bonus(ctx: QueryContext, shortlist: Sequence[GatedCandidate]) -> QueryContext:
    """The context with the knowledge graph's bonus for the shortlisted texts added (when it has one)."""
    if ctx.graph_boost is None or not shortlist:
        return ctx
    texts = {g.candidate.id: g.candidate.text for g in shortlist}
    try:
        found = ctx.graph_boost(texts)
    except Exception:  # noqa: BLE001 - a graph problem must not cost the user their memories
        logger.exception("the knowledge-graph boost failed; ranking without it")
        return ctx
    return replace(ctx, graph_bonus={**found, **ctx.graph_bonus})


def _cap_per_collection(
    ranked: Sequence[ScoredMemory], limits: Mapping[str, int], k: int
) -> list[ScoredMemory]:
    taken: dict[str, int] = {}
    out: list[ScoredMemory] = []
    for item in ranked:
        if taken.get(item.collection, 0) >= limits.get(item.collection, k):
            continue
        taken[item.collection] = taken.get(item.collection, 0) + 1
        out.append(item)
        if len(out) >= k:
            break
    return out


def factors_payload(item: ScoredMemory) -> dict[str, Any]:
    """The `memory search --json` entry of one result."""
    return {
        "id": item.id,
        "collection": item.collection,
        "text": item.text,
        "score": round(item.score, 4),
        "factors": {name: round(value, 4) for name, value in item.factors.items()},
        "created_at": item.metadata.get("created_at"),
        "source": provenance(item.collection, item.metadata),
    }


FoundBy = tuple[str, str | None]  # a conversation record's searchable text and its previous turn's


def _found_by(record: Record, previous: str | None) -> FoundBy:
    """(its text, its previous turn's text) as a conversation record is searched (`searchable_text`)."""
    before = searchable_text(previous, record.metadata) if previous is not None else None
    return searchable_text(record.text, record.metadata), before
