"""`core.ports.MemoryBrowser` over the memory service: what the agent's store tools read.

Search in any one collection (or the normal multi-collection search), expansion of a memory into its
session neighbours (conversation turns) or its sources (the turns a summary was written from), whole
documents of `reference_docs` (memory/documents.py holds the chunk contract) and record counts. Everything
here reads; records the user hid stay hidden.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import PurePath
from typing import Any

from core.ports import DocumentInfo, DocumentText, MemoryEntry, MemoryExpansion
from memory.candidates import QueryContext
from memory.collections import COLLECTION_NAMES, COLLECTIONS, CONVERSATIONS, get_spec
from memory.documents import list_documents, read_document
from memory.scoring import is_superseded
from memory.service import MemoryService
from memory.vector_store import Record

VISUAL = "visual_memories"
# Records that keep the ids of what they were written from (a JSON list in `source_ids`).
SOURCE_COLLECTIONS = ("summaries", "reflections", "synthesis_results")
_PREFIXES = {spec.id_prefix: spec.name for spec in COLLECTIONS if spec.id_prefix}
_WORD = re.compile(r"\w{3,}")


class MemoryReader:
    """Read-only views of the stores for the agent's tools (the `MemoryBrowser` port)."""

    def __init__(self, service: MemoryService, *, clock: Callable[[], float] = time.time) -> None:
        self._service = service
        self._clock = clock

    async def find(self, query: str, collection: str | None, limit: int) -> list[MemoryEntry]:
        """Search one collection or (None) all of them the general intent searches, best first."""
        if collection is not None:
            get_spec(collection)  # a CollectionNameError (a ValueError's cousin) names the known ones
        ctx = QueryContext(query=query, now=self._clock())
        chosen = [collection] if collection else None
        found = await self._service.search(ctx, collections=chosen, k=limit)
        entries = [entry(m.id, m.collection, m.text, m.metadata, m.score) for m in found]
        if collection == VISUAL and len(entries) < limit:
            # Captions are searched by meaning and words; the file name and media type only by words here.
            more = await asyncio.to_thread(self._visual_by_metadata, query, {e.id for e in entries})
            entries.extend(more[: limit - len(entries)])
        return entries

    def _visual_by_metadata(self, query: str, seen: set[str]) -> list[MemoryEntry]:
        words = {w.casefold() for w in _WORD.findall(query)}
        hidden = self._service.hidden_ids(VISUAL)
        out = []
        for record in self._service.store.get(VISUAL):
            if record.id in seen or record.id in hidden:
                continue
            meta = record.metadata
            name = PurePath(str(meta.get("image_path", ""))).name
            fields = f"{name} {meta.get('media_type', '')}".casefold()
            if words and any(word in fields for word in words):
                out.append(entry(record.id, VISUAL, record.text, meta))
        out.sort(key=lambda e: e.created_at or 0.0, reverse=True)
        return out

    async def expand(self, memory_id: str, direction: str, count: int) -> MemoryExpansion:
        """Session neighbours of a turn, or the sources of a summary; see `core.ports.MemoryExpansion`."""
        return await asyncio.to_thread(self._expand, memory_id, direction, max(0, count))

    def _expand(self, memory_id: str, direction: str, count: int) -> MemoryExpansion:
        found = self._lookup(memory_id)
        if found is None:
            return MemoryExpansion(None, "none")
        collection, record = found
        anchor = entry(record.id, collection, record.text, record.metadata)
        if collection == CONVERSATIONS:
            return self._neighbours(anchor, direction, count)
        sources = _source_ids(record.metadata) if collection in SOURCE_COLLECTIONS else []
        if not sources:
            return MemoryExpansion(anchor, "none", (anchor,))
        turns = sorted(self._records(sources), key=lambda e: e.created_at or 0.0)
        shown = 2 * count + 1 if direction == "around" else count
        start = max(0, len(turns) - shown) if direction == "after" else 0
        kept = turns[start : start + shown]
        return MemoryExpansion(anchor, "sources", tuple(kept), start, len(turns) - start - len(kept))

    def _neighbours(self, anchor: MemoryEntry, direction: str, count: int) -> MemoryExpansion:
        session = anchor.metadata.get("session_id")
        if not isinstance(session, str):
            return MemoryExpansion(anchor, "neighbours", (anchor,))
        hidden = self._service.hidden_ids(CONVERSATIONS)
        stored = self._service.store.get(CONVERSATIONS, where={"session_id": session})
        turns = [r for r in stored if r.id not in hidden]
        turns.sort(key=_turn_order)
        at = next(i for i, r in enumerate(turns) if r.id == anchor.id)
        start = at - count if direction in ("around", "before") else at
        end = at + count + 1 if direction in ("around", "after") else at + 1
        start, end = max(0, start), min(len(turns), end)
        kept = tuple(entry(r.id, CONVERSATIONS, r.text, r.metadata) for r in turns[start:end])
        return MemoryExpansion(anchor, "neighbours", kept, start, len(turns) - end)

    def _lookup(self, memory_id: str) -> tuple[str, Record] | None:
        """The visible record with this id: in the collection its prefix names, else in any collection."""
        prefix = memory_id.split("_", 1)[0]
        first = [_PREFIXES[prefix]] if prefix in _PREFIXES else []
        for name in [*first, *(n for n in COLLECTION_NAMES if n not in first)]:
            found = self._service.store.get(name, ids=[memory_id])
            if found and memory_id not in self._service.hidden_ids(name):
                return name, found[0]
        return None

    def _records(self, ids: Sequence[str]) -> list[MemoryEntry]:
        """Visible records by id, wherever they live (sources are turns, sometimes other memories)."""
        out = []
        for memory_id in dict.fromkeys(ids):
            found = self._lookup(memory_id)
            if found is not None:
                collection, record = found
                out.append(entry(record.id, collection, record.text, record.metadata))
        return out

    async def documents(self) -> list[DocumentInfo]:
        """Every document of `reference_docs`, one entry per document id, oldest first."""
        hidden = self._service.hidden_ids("reference_docs")
        firsts = await asyncio.to_thread(list_documents, self._service.store, hidden)
        return sorted((_info(r.metadata) for r in firsts), key=lambda d: d.created_at or 0.0)

    async def document(self, document_id: str) -> DocumentText | None:
        """The newest version of one document, its chunks joined in order."""
        hidden = self._service.hidden_ids("reference_docs")
        found = await asyncio.to_thread(read_document, self._service.store, document_id, hidden)
        if found is None:
            return None
        return DocumentText(_info(found.metadata), found.text, found.missing)

    def counts(self) -> Mapping[str, int]:
        """Records per collection (all 13), as the lexical index counts them (the store's counts, see
        `MemoryService.indexed_count`): tools ask this while the app starts, before any collection loads."""
        return {name: self._service.indexed_count(name) for name in COLLECTION_NAMES}


def entry(
    record_id: str, collection: str, text: str, meta: Mapping[str, Any], score: float = 0.0
) -> MemoryEntry:
    """The port's view of a stored record."""
    created = meta.get("created_at")
    staleness = meta.get("staleness_ratio")
    return MemoryEntry(
        record_id,
        collection,
        text,
        float(created) if isinstance(created, int | float) else None,
        score,
        float(staleness) if isinstance(staleness, int | float) else 0.0,
        is_superseded(meta),
        dict(meta),
    )


def _turn_order(record: Record) -> tuple[float, int]:
    meta = record.metadata
    created, seq = meta.get("created_at", 0.0), meta.get("seq", 0)
    when = float(created) if isinstance(created, int | float) else 0.0
    return when, int(seq) if isinstance(seq, int) else 0


def _source_ids(meta: Mapping[str, Any]) -> list[str]:
    raw = meta.get("source_ids")
    try:
        ids = json.loads(raw) if isinstance(raw, str) else []
    except ValueError:
        return []
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def _info(meta: Mapping[str, Any]) -> DocumentInfo:
    created = meta.get("created_at")
    total = meta.get("total_chunks")
    return DocumentInfo(
        str(meta.get("document_id", "")),
        str(meta.get("title", "") or ""),
        int(total) if isinstance(total, int) else 0,
        str(meta.get("file_path", "") or ""),
        float(created) if isinstance(created, int | float) else None,
    )
