"""In-process BM25 indexes, one per collection, kept in step with the vector store.

Chroma has no lexical search, so each collection's texts are also indexed here: rebuilt from the store at
start-up, updated on every write. Conversations get a second, contextual view (the previous turn of the same
session followed by the turn), which measurably helps follow-up answers ("Yes, last May") be found.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from memory.bm25 import BM25Index

BM25_K1 = 0.9  # Anserini's defaults for short documents (docs/retrieval_findings.md)
BM25_B = 0.4
CONTEXT_VIEW_COLLECTIONS = frozenset({"conversations"})


def contextual_text(previous: str | None, text: str) -> str:
    """The contextual view of a turn: the previous turn of its session, then the turn."""
    return f"{previous}\n{text}" if previous else text


def previous_texts(records: Sequence[tuple[str, str, Mapping[str, Any]]]) -> dict[str, str | None]:
    """For (id, text, metadata) turn records: each id's previous turn text in the same session."""

    def order(item: tuple[str, str, Mapping[str, Any]]) -> tuple[str, float, int]:
        meta = item[2]
        return (str(meta.get("session_id", "")), float(meta.get("created_at", 0.0)), int(meta.get("seq", 0)))

    previous: dict[str, str | None] = {}
    last_session, last_text = None, None
    for record_id, text, meta in sorted(records, key=order):
        session = meta.get("session_id")
        previous[record_id] = last_text if session is not None and session == last_session else None
        last_session, last_text = session, text
    return previous


class LexicalIndexes:
    """BM25 over each collection's texts (and the contextual view of conversations). Thread-safe."""

    def __init__(self, k1: float = BM25_K1, b: float = BM25_B) -> None:
        self._k1, self._b = k1, b
        self._bare: dict[str, BM25Index] = {}
        self._context: dict[str, BM25Index] = {}
        self._lock = threading.Lock()

    def _index(self, table: dict[str, BM25Index], collection: str) -> BM25Index:
        if collection not in table:
            table[collection] = BM25Index(k1=self._k1, b=self._b)
        return table[collection]

    def add(self, collection: str, items: Iterable[tuple[str, str, str | None]]) -> None:
        """Index (id, text, previous-turn text or None) items; re-adding an id replaces it."""
        with self._lock:
            bare = self._index(self._bare, collection)
            context = (
                self._index(self._context, collection) if collection in CONTEXT_VIEW_COLLECTIONS else None
            )
            for record_id, text, previous in items:
                bare.upsert(record_id, text)
                if context is not None:
                    context.upsert(record_id, contextual_text(previous, text))

    def search(self, collection: str, query: str, n: int) -> dict[str, tuple[float, float]]:
        """Up to `n` best ids of each view, with (bare score, contextual score) for every id found."""
        with self._lock:
            bare = self._bare.get(collection)
            context = self._context.get(collection)
            if bare is None or n <= 0:
                return {}
            found = {doc for doc, _ in bare.search(query, n)}
            if context is not None:
                found.update(doc for doc, _ in context.search(query, n))
            bare_scores = bare.score_map(query, subset=found)
            context_scores = context.score_map(query, subset=found) if context is not None else {}
        return {doc: (bare_scores.get(doc, 0.0), context_scores.get(doc, 0.0)) for doc in found}

    def scores_for(self, collection: str, query: str, ids: Iterable[str]) -> dict[str, tuple[float, float]]:
        """(bare, contextual) BM25 scores of given ids (0 when they share no term with the query)."""
        wanted = list(ids)
        with self._lock:
            bare = self._bare.get(collection)
            context = self._context.get(collection)
            bare_scores = bare.score_map(query, subset=wanted) if bare is not None else {}
            context_scores = context.score_map(query, subset=wanted) if context is not None else {}
        return {doc: (bare_scores.get(doc, 0.0), context_scores.get(doc, 0.0)) for doc in wanted}

    def size(self, collection: str) -> int:
        with self._lock:
            index = self._bare.get(collection)
            return len(index) if index is not None else 0
