"""A numpy brute-force `VectorStore` for unit tests, with the same semantics as the Chroma store.

Exact cosine search over all rows, so it is only meant for small data; the contract suite checks that it
ranks, filters and validates like Chroma.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.errors import StorageError
from memory.collections import CollectionSpec, validate_collection_name, validate_metadata
from memory.vector_store import (
    Hit,
    Record,
    UnknownCollectionError,
    Where,
    checked_embeddings,
    dedupe_records,
    normalise_where,
    where_matches,
)

if TYPE_CHECKING:
    import numpy as np

    from memory.embeddings import Embedder


@dataclass
class _Collection:
    spec: CollectionSpec
    rows: dict[str, tuple[Record, Any]] = field(default_factory=dict)  # id -> (record, unit vector)


class InMemoryStore:
    """`VectorStore` held in process memory. Thread-safe (one lock); nothing persists."""

    def __init__(self, embedder: Embedder, *, batch_size: int = 256) -> None:
        self.embedder = embedder
        self._batch_size = batch_size
        self._collections: dict[str, _Collection] = {}
        self._lock = threading.RLock()
        self._closed = False

    def ensure_collections(self, specs: Sequence[CollectionSpec]) -> None:
        """Open (creating if needed) these collections; a known one keeps its records, takes the new spec."""
        with self._lock:
            self._check_open()
            for spec in specs:
                validate_collection_name(spec.name)
                existing = self._collections.get(spec.name)
                if existing is None:
                    self._collections[spec.name] = _Collection(spec)
                else:
                    existing.spec = spec

    def upsert(
        self, collection: str, records: Sequence[Record], embeddings: np.ndarray | None = None
    ) -> None:
        """Insert or replace records by id; embeds texts in batches when `embeddings` is None.

        Like the Chroma store, records identical to what is stored (text and metadata) are not re-embedded.
        """
        target = self._collection(collection)
        unique = dedupe_records(records)
        cleaned = [
            Record(item.id, item.text, validate_metadata(target.spec, item.metadata)) for item in unique
        ]
        if embeddings is not None:
            array = checked_embeddings(embeddings, len(records), self.embedder.dim, collection)
            by_id = {record.id: vector for record, vector in zip(records, array, strict=True)}
            changed, vectors = cleaned, [by_id[record.id] for record in cleaned]
        else:
            with self._lock:
                changed = [record for record in cleaned if _differs(record, target.rows.get(record.id))]
            vectors = list(self._embed([record.text for record in changed], collection))
        with self._lock:
            self._check_open()
            for record, vector in zip(changed, vectors, strict=True):
                target.rows[record.id] = (record, _unit(vector))

    def _embed(self, texts: list[str], collection: str) -> np.ndarray:
        import numpy as np

        chunks = [
            checked_embeddings(
                self.embedder.embed(texts[start : start + self._batch_size]),
                len(texts[start : start + self._batch_size]),
                self.embedder.dim,
                collection,
            )
            for start in range(0, len(texts), self._batch_size)
        ]
        return np.concatenate(chunks) if chunks else np.zeros((0, self.embedder.dim), dtype=np.float32)

    def query(
        self, collection: str, query_embedding: np.ndarray, k: int, where: Where | None = None
    ) -> list[Hit]:
        """Exact cosine nearest neighbours, most similar first."""
        import numpy as np

        target = self._collection(collection)
        clause = normalise_where(where)
        query = _unit(checked_embeddings(query_embedding, 1, self.embedder.dim, f"query on {collection}")[0])
        if k <= 0:
            return []
        with self._lock:
            rows = [row for row in target.rows.values() if where_matches(clause, row[0].metadata)]
        if not rows:
            return []
        matrix = np.stack([vector for _, vector in rows])
        distances = 1.0 - matrix @ query
        order = np.argsort(distances, kind="stable")[:k]
        return [
            Hit(rows[i][0].id, collection, rows[i][0].text, dict(rows[i][0].metadata), float(distances[i]))
            for i in order
        ]

    def get(
        self,
        collection: str,
        ids: Sequence[str] | None = None,
        where: Where | None = None,
        limit: int | None = None,
    ) -> list[Record]:
        """Records by id (in the order asked) and/or filter (insertion order), at most `limit`."""
        target = self._collection(collection)
        clause = normalise_where(where)
        with self._lock:
            if ids is None:
                found = [record for record, _ in target.rows.values()]
            else:
                found = [target.rows[i][0] for i in dict.fromkeys(ids) if i in target.rows]
        found = [record for record in found if where_matches(clause, record.metadata)]
        if limit is not None:
            found = found[: max(limit, 0)]
        return [Record(record.id, record.text, dict(record.metadata)) for record in found]

    def get_with_vectors(
        self, collection: str, ids: Sequence[str] | None = None, where: Where | None = None
    ) -> list[tuple[Record, np.ndarray]]:
        """Records with their stored vectors: by id (missing or filtered-out ids skipped), or all (None)."""
        target = self._collection(collection)
        clause = normalise_where(where)
        with self._lock:
            if ids is None:
                rows = list(target.rows.values())
            else:
                rows = [target.rows[i] for i in dict.fromkeys(ids) if i in target.rows]
        return [
            (Record(record.id, record.text, dict(record.metadata)), vector.copy())
            for record, vector in rows
            if where_matches(clause, record.metadata)
        ]

    def count(self, collection: str) -> int:
        """Number of records in one collection."""
        target = self._collection(collection)
        with self._lock:
            return len(target.rows)

    def counts(self) -> dict[str, int]:
        """Number of records per open collection."""
        with self._lock:
            self._check_open()
            return {name: len(item.rows) for name, item in self._collections.items()}

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Remove records by id (explicit user requests only); unknown ids are ignored."""
        target = self._collection(collection)
        with self._lock:
            for record_id in ids:
                target.rows.pop(record_id, None)

    def close(self) -> None:
        """Drop everything; the store refuses calls afterwards."""
        with self._lock:
            self._closed = True
            self._collections.clear()

    def warm(self, collections: Sequence[str]) -> None:
        """Nothing to load: the rows are in memory."""

    def opened_state(self) -> str | None:
        """None: nothing persists, so no file state can vouch for it."""
        return None

    def closed_state(self) -> str | None:
        """None: nothing persists."""
        return None

    def _check_open(self) -> None:
        if self._closed:
            raise StorageError("the vector store is closed")

    def _collection(self, name: str) -> _Collection:
        with self._lock:
            self._check_open()
            target = self._collections.get(name)
        if target is None:
            validate_collection_name(name)
            known = ", ".join(sorted(self._collections)) or "none"
            raise UnknownCollectionError(f"collection {name!r} is not open (open collections: {known})")
        return target


def _differs(record: Record, row: tuple[Record, Any] | None) -> bool:
    return row is None or (row[0].text, row[0].metadata) != (record.text, record.metadata)


def _unit(vector: Any) -> np.ndarray:
    import numpy as np

    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm else array
