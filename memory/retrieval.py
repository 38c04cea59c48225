"""Candidate generation: for one query, every enabled collection is searched concurrently.

Each collection task runs the dense nearest-neighbour query and the lexical (BM25) search, then completes
the evidence of each candidate: BM25 scores for dense hits, and the stored vector's cosine for lexical-only
hits (from the in-process payload mirror: no re-embedding, no extra store read). The query is embedded
once by the caller. A slow or failing collection is reported and skipped; it never fails the request.

A collection that holds nothing is not searched at all: its record count is the lexical index's size, kept in
step with every write (no store read), so a turn does not pay for the collections no source has filled. A
collection may also be answered by a `CandidateSource` outside the vector store (the user's Wikipedia FAISS
index as `wiki_knowledge`): its hits are dense evidence only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from core.tracing import span
from memory.candidates import Candidate
from memory.lexical import LexicalIndexes
from memory.payloads import Payloads
from memory.vector_store import VectorStore, Where, normalise_where, where_matches

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetrievalSettings:
    """How many candidates each signal proposes per collection, and how long a collection may take."""

    dense_candidates: int = 50
    lexical_candidates: int = 50
    timeout_s: float = 5.0
    skip_empty: bool = True  # False only for `bench latency`'s same-run baseline (every collection searched)


class SourceHit(Protocol):
    """One passage a `CandidateSource` found: its record id, text, metadata and cosine similarity."""

    @property
    def id(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def metadata(self) -> Mapping[str, Any]: ...

    @property
    def similarity(self) -> float: ...


class CandidateSource(Protocol):
    """Records searched outside the vector store, answered as one collection (built by the composition
    root)."""

    def size(self) -> int:
        """How many records it holds (cheap: read on every search)."""
        ...

    def search(self, query_vector: np.ndarray, k: int) -> Sequence[SourceHit]:
        """The `k` nearest passages to a unit query vector, most similar first."""
        ...


@dataclass(frozen=True)
class RetrievalResult:
    candidates: list[Candidate]
    failures: dict[str, str] = field(default_factory=dict)  # collection -> what went wrong


class Retriever:
    """Finds candidates in several collections at once."""

    def __init__(
        self,
        store: VectorStore,
        lexical: LexicalIndexes,
        payloads: Payloads,
        settings: RetrievalSettings,
        *,
        sources: Mapping[str, CandidateSource] | None = None,
    ) -> None:
        self._store = store
        self._lexical = lexical
        self._payloads = payloads
        self._settings = settings
        self._sources = dict(sources or {})

    def holds_records(self, collection: str) -> bool:
        """Whether a search of `collection` can find anything: records indexed, or a source with some."""
        source = self._sources.get(collection)
        return self._lexical.size(collection) > 0 or (source is not None and source.size() > 0)

    async def candidates(
        self,
        query: str,
        query_vector: np.ndarray,
        collections: Mapping[str, int],
        where: Mapping[str, Where] | None = None,
    ) -> RetrievalResult:
        """Search the collections whose limit is above 0 and that hold records, concurrently, each bounded
        by the timeout."""
        skip = self._settings.skip_empty
        names = [
            name
            for name, limit in collections.items()
            if limit > 0 and (not skip or self.holds_records(name))
        ]
        tasks = [
            asyncio.wait_for(
                asyncio.to_thread(
                    self.search_collection,
                    name,
                    query,
                    query_vector,
                    (where or {}).get(name),
                    collections[name],
                ),
                self._settings.timeout_s,
            )
            for name in names
        ]
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        found: list[Candidate] = []
        failures: dict[str, str] = {}
        for name, outcome in zip(names, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                reason = (
                    "timed out"
                    if isinstance(outcome, TimeoutError)
                    else f"{type(outcome).__name__}: {outcome}"
                )
                logger.warning("memory search in %s failed: %s", name, reason)
                failures[name] = reason
            else:
                found.extend(outcome)
        return RetrievalResult(found, failures)

    def search_collection(
        self,
        collection: str,
        query: str,
        query_vector: np.ndarray,
        where: Where | None = None,
        limit: int | None = None,
    ) -> list[Candidate]:
        """Dense and lexical candidates of one collection, each with the evidence of both signals.

        Lexical-only candidates cost a store read, so a collection that may contribute `limit` results
        proposes at most twice that many (never fewer than 10, never more than `lexical_candidates`)."""
        source = self._sources.get(collection)
        out: list[Candidate] = []
        with span("retrieval.collection", collection=collection) as searched:
            if source is None or self._lexical.size(collection) > 0:
                out = self._from_store(collection, query, query_vector, where, limit)
            if source is not None:
                out.extend(self._from_source(source, collection, query_vector, where))
        if searched is not None:
            searched.attributes["candidates"] = len(out)
        return out

    def _from_store(
        self, collection: str, query: str, query_vector: np.ndarray, where: Where | None, limit: int | None
    ) -> list[Candidate]:
        settings = self._settings
        lexical_n = settings.lexical_candidates if limit is None else max(10, 2 * limit)
        hits = self._store.query(collection, query_vector, settings.dense_candidates, where)
        lexical = self._lexical.search(collection, query, min(settings.lexical_candidates, lexical_n))
        dense_ids = {hit.id for hit in hits}
        lexical.update(self._lexical.scores_for(collection, query, dense_ids - lexical.keys()))
        out = [
            Candidate(
                hit.id, collection, hit.text, hit.metadata, hit.similarity, *lexical.get(hit.id, (0.0, 0.0))
            )
            for hit in hits
        ]
        out.extend(self._lexical_only(collection, query_vector, lexical, dense_ids, where))
        return out

    def _from_source(
        self, source: CandidateSource, collection: str, query_vector: np.ndarray, where: Where | None
    ) -> list[Candidate]:
        """A source's nearest passages as dense-only candidates (it has no lexical index of its own)."""
        clause = normalise_where(where)
        return [
            Candidate(hit.id, collection, hit.text, dict(hit.metadata), float(hit.similarity))
            for hit in source.search(query_vector, self._settings.dense_candidates)
            if where_matches(clause, hit.metadata)
        ]

    def _lexical_only(
        self,
        collection: str,
        query_vector: np.ndarray,
        lexical: Mapping[str, tuple[float, float]],
        dense_ids: set[str],
        where: Where | None,
    ) -> list[Candidate]:
        missing = [doc for doc in lexical if doc not in dense_ids]
        if not missing:
            return []
        return [
            Candidate(
                record.id,
                collection,
                record.text,
                record.metadata,
                float(vector @ query_vector),
                *lexical[record.id],
            )
            for record, vector in self._payloads.get(collection, missing, where)
        ]
