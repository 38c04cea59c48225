"""The real parts the source-sync tests run on: a memory service (in-memory store, hashing embedder), the
sink the CLI uses over it, counting what each sync writes, and search helpers."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from knowledge.source_sync import SourceRecord
from memory.candidates import QueryContext
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.service import MemoryService
from memory.vector_store import Record
from tests.unit.memory.profile_helpers import committed_profiles
from ui.shared.source_sync import MemorySink


def open_memory() -> MemoryService:
    service = MemoryService(InMemoryStore(HashingEmbedder(256)), committed_profiles())
    service.open()
    return service


class CountingSink(MemorySink):
    """The CLI's sink, remembering the ids each call wrote or marked."""

    def __init__(self, service: MemoryService) -> None:
        super().__init__(service)
        self.upserted: list[str] = []
        self.marked: dict[str, dict[str, Any]] = {}

    def upsert(self, collection: str, records: Sequence[SourceRecord]) -> None:
        self.upserted.extend(r.id for r in records)
        super().upsert(collection, records)

    def mark(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> int:
        self.marked.update({k: dict(v) for k, v in updates.items()})
        return super().mark(collection, updates)

    def reset(self) -> None:
        self.upserted.clear()
        self.marked.clear()


def records(service: MemoryService, collection: str) -> list[Record]:
    return service.store.get(collection)


def live(service: MemoryService, collection: str) -> list[Record]:
    return [r for r in records(service, collection) if r.metadata.get("deleted_at") is None]


def search_ids(service: MemoryService, query: str, collection: str, k: int = 20) -> list[str]:
    ctx = QueryContext(query=query, now=2_000_000_000.0)
    found = asyncio.run(service.search(ctx, collections=[collection], k=k))
    return [m.id for m in found]
