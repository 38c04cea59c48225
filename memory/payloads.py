"""Texts, metadata and vectors of every record, held in process beside the lexical index.

A BM25 hit that the nearest-neighbour query did not return still needs its text, metadata and vector to be
scored. Reading them back from Chroma costs a store round trip per collection and query (about half a
nearest-neighbour query at 100k records); this mirror answers from memory. Vectors are kept as float16
(~0.8 kB per record), so 100k memories cost about 80 MB. It is filled on every write and, for records
written before this start, on first use (one store read for the records a query misses): reading every
record at start-up cost seconds per 10k memories before the first answer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from memory.vector_store import Record, Where, normalise_where, where_matches

if TYPE_CHECKING:
    import numpy as np


Fetch = Callable[[str, Sequence[str]], list[tuple[Record, "np.ndarray"]]]


class Payloads:
    """(record, vector) by collection and id, read through to the store when not held yet. Thread-safe."""

    def __init__(self, fetch: Fetch | None = None) -> None:
        """`fetch(collection, ids)` reads records with vectors from the store (missing ids skipped)."""
        self._items: dict[str, dict[str, tuple[Record, np.ndarray]]] = {}
        self._fetch = fetch
        self._lock = threading.Lock()

    def put(self, collection: str, items: Iterable[tuple[Record, np.ndarray]]) -> None:
        import numpy as np

        with self._lock:
            table = self._items.setdefault(collection, {})
            for record, vector in items:
                table[record.id] = (record, np.asarray(vector, dtype=np.float16))

    def get(
        self, collection: str, ids: Sequence[str], where: Where | None = None
    ) -> list[tuple[Record, np.ndarray]]:
        """Known records among `ids` that match `where`, with float32 vectors."""
        import numpy as np

        clause = normalise_where(where)
        with self._lock:
            table = self._items.get(collection, {})
            missing = [i for i in ids if i not in table]
        if missing and self._fetch is not None:
            fetched = self._fetch(collection, missing)
            with self._lock:  # setdefault: a write that landed meanwhile is newer than this read
                table = self._items.setdefault(collection, {})
                for record, vector in fetched:
                    table.setdefault(record.id, (record, np.asarray(vector, dtype=np.float16)))
        with self._lock:
            table = self._items.get(collection, {})
            found = [table[i] for i in ids if i in table]
        return [
            (record, vector.astype(np.float32))
            for record, vector in found
            if where_matches(clause, record.metadata)
        ]

    def remove(self, collection: str, ids: Iterable[str]) -> None:
        """Forget records (a purge)."""
        with self._lock:
            table = self._items.get(collection, {})
            for record_id in ids:
                table.pop(record_id, None)
