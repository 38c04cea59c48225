"""`core.ports.SynthesisSources` over the memory service: what synthesis starts from and compares with.

Hidden records (the user's approved dedup), tombstones and superseded facts are never used: a connection
built on a fact the user corrected would be a falsehood about them. `nearest` also searches the sources
outside the store (the Wikipedia index as `wiki_knowledge`) when one is configured.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from core.ports import KnownText
from memory.service import MemoryService
from memory.vector_store import Record

RESULTS = "synthesis_results"


class SynthesisMemory:
    """Reads the user's stores for synthesis and keeps accepted connections in `synthesis_results`."""

    def __init__(self, service: MemoryService, *, seed: int | None = None) -> None:
        self._service = service
        self._rng = random.Random(seed)

    def texts(self, collections: Sequence[str], limit: int) -> list[KnownText]:
        out: list[KnownText] = []
        for name in collections:
            if name in self._service.sources:
                continue  # an outside index is searched, never listed
            usable = [r for r in self._service.latest(name, 100_000) if _usable(r)]
            if len(usable) > limit:
                usable = self._rng.sample(usable, limit)
            out.extend(KnownText(r.id, name, r.text) for r in usable)
        return out

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self._service.embedder.embed(list(texts)), dtype=np.float32)

    def nearest(self, vector: Any, collections: Sequence[str], k: int) -> list[tuple[KnownText, float]]:
        query = np.asarray(vector, dtype=np.float32)
        found: list[tuple[KnownText, float]] = []
        for name in collections:
            source = self._service.sources.get(name)
            if source is not None:
                found.extend(
                    (KnownText(h.id, name, h.text), float(h.similarity)) for h in source.search(query, k)
                )
                continue
            hidden = self._service.hidden_ids(name)
            for hit in self._service.store.query(name, query, k):
                if hit.id not in hidden and _usable(Record(hit.id, hit.text, hit.metadata)):
                    found.append((KnownText(hit.id, name, hit.text), hit.similarity))
        found.sort(key=lambda pair: -pair[1])
        return found[:k]

    def keep(self, result_id: str, text: str, metadata: Mapping[str, Any]) -> None:
        self._service.add(RESULTS, [Record(result_id, text, dict(metadata))])


def _usable(record: Record) -> bool:
    meta = record.metadata
    return (
        meta.get("deleted_at") is None
        and meta.get("status") != "superseded"
        and not meta.get("superseded_by")
    )
