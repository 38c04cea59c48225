"""In-process BM25 indexes, one per collection, kept in step with the vector store.

Chroma has no lexical search, so each collection's texts are also indexed here: updated on every write,
persisted (memory/lexical_store.py) and loaded at start-up, rebuilt from the store only for what the
persisted index lacks. Conversations get a second, contextual view (the previous turn of the same
session followed by the turn), which measurably helps follow-up answers ("Yes, last May") be found.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from memory.bm25 import BM25Index, CachedTokenizer
from memory.lexical_store import BARE, CONTEXT, LexicalStore

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
    """BM25 over each collection's texts (and the contextual view of conversations). Thread-safe.

    With a `LexicalStore`, every write is persisted (tokens, in the same call) and `load()` restores the
    indexes at start-up without re-tokenising; without one, the indexes live in memory only."""

    def __init__(
        self, k1: float = BM25_K1, b: float = BM25_B, *, persisted: LexicalStore | None = None
    ) -> None:
        self._k1, self._b = k1, b
        self._tokenizer = CachedTokenizer()
        self._bare: dict[str, BM25Index] = {}
        self._context: dict[str, BM25Index] = {}
        self._persisted = persisted
        self._lock = threading.Lock()

    def _index(self, table: dict[str, BM25Index], collection: str) -> BM25Index:
        if collection not in table:
            table[collection] = BM25Index(k1=self._k1, b=self._b, tokenizer=self._tokenizer)
        return table[collection]

    def load(self) -> int:
        """Restore the persisted indexes (nothing without a store); returns how many documents loaded."""
        if self._persisted is None:
            return 0
        vocab, views = self._persisted.load()
        loaded = 0
        with self._lock:
            for view in views:
                table = self._context if view.view == CONTEXT else self._bare
                index = BM25Index(k1=self._k1, b=self._b, tokenizer=self._tokenizer)
                index.load(vocab, view.docs)
                table[view.collection] = index
                loaded += len(view.docs)
        return loaded

    def add(self, collection: str, items: Iterable[tuple[str, str, str | None]]) -> None:
        """Index (id, text, previous-turn text or None) items; re-adding an id replaces it. Persisted
        first: a failed write leaves the in-memory index as it was."""
        contextual = collection in CONTEXT_VIEW_COLLECTIONS
        rows: list[tuple[str, str, list[str]]] = []
        for record_id, text, previous in items:
            rows.append((BARE, record_id, self._tokenizer(text)))
            if contextual:
                rows.append((CONTEXT, record_id, self._tokenizer(contextual_text(previous, text))))
        if not rows:
            return
        with self._lock:
            if self._persisted is not None:
                self._persisted.put(collection, rows)
            for view, record_id, tokens in rows:
                table = self._context if view == CONTEXT else self._bare
                self._index(table, collection).upsert_tokens(record_id, tokens)

    def remove(self, collection: str, ids: Iterable[str]) -> None:
        """Forget documents in every view (a purge): their text is no longer found, now or after restart."""
        wanted = list(ids)
        if not wanted:
            return
        with self._lock:
            if self._persisted is not None:
                self._persisted.remove(collection, wanted)
            for table in (self._bare, self._context):
                index = table.get(collection)
                if index is not None:
                    for record_id in wanted:
                        index.remove(record_id)

    def ids(self, collection: str) -> set[str]:
        """The ids indexed for a collection (start-up reconciliation compares them with the store's)."""
        with self._lock:
            index = self._bare.get(collection)
            return set(index.ids) if index is not None else set()

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
        """Documents indexed for a collection."""
        with self._lock:
            index = self._bare.get(collection)
            return len(index) if index is not None else 0

    def take_clean_marker(self) -> dict[str, Any] | None:
        """The persisted clean-shutdown marker, removed as it is read (None: in memory only, or none)."""
        return self._persisted.take_clean_marker() if self._persisted is not None else None

    def mark_clean(self, marker: dict[str, Any]) -> None:
        """Persist a clean-shutdown marker (nothing for an index kept in memory only)."""
        if self._persisted is not None:
            self._persisted.mark_clean(marker)

    def close(self) -> None:
        if self._persisted is not None:
            self._persisted.close()
