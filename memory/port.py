"""`core.ports.MemoryPort` over the memory service: what the orchestrator recalls and remembers per turn.

It is a `core.ports.MemoryBrowser` too (memory/browse.py): the agent's store tools read through it."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from pathlib import PurePath
from typing import Any

from core.ports import GraphBoost, RecalledMemory, TurnRecord
from memory.browse import MemoryReader
from memory.candidates import QueryContext
from memory.scoring import is_superseded
from memory.service import MemoryService
from memory.turn_index import TurnIndexer, conversation_id

logger = logging.getLogger(__name__)


class ConversationMemory(MemoryReader):
    """Recall = the normal search path; remember = per-turn storage (journal first, then conversations);
    the `MemoryReader` reads (find, expand, documents) serve the agent's tools."""

    def __init__(
        self,
        service: MemoryService,
        indexer: TurnIndexer,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(service, clock=clock)
        self._indexer = indexer

    async def recall(
        self,
        query: str,
        session_id: str,
        limit: int,
        intent: str = "general",
        shown_turn_ids: frozenset[str] = frozenset(),
        boost: GraphBoost | None = None,
    ) -> list[RecalledMemory]:
        """Memories for this query (scored with the intent's profile), minus the turns already shown."""
        ctx = QueryContext(
            query=query, now=self._clock(), session_id=session_id, intent=intent, graph_boost=boost
        )
        found = await self._service.search(ctx, k=limit + len(shown_turn_ids))
        shown = {conversation_id(t) for t in shown_turn_ids}
        memories = [
            _recalled(m.id, m.collection, m.text, m.score, m.metadata) for m in found if m.id not in shown
        ]
        return memories[:limit]

    async def latest(
        self, collection: str, limit: int, where: Mapping[str, Any] | None = None
    ) -> list[RecalledMemory]:
        """The newest records of a collection (minus what the user hid), newest first."""
        records = await asyncio.to_thread(self._service.latest, collection, limit, where)
        return [_recalled(r.id, collection, r.text, 0.0, r.metadata) for r in records]

    async def remember(self, turn: TurnRecord) -> None:
        """Index a committed turn. A failure is logged: the journal has it and start-up repair retries."""
        try:
            await asyncio.to_thread(self._indexer.index, [turn])
        except Exception:  # noqa: BLE001 - the turn is safe in the journal; never fail the reply over this
            logger.exception(
                "could not index turn %s into long-term memory (will retry at start-up)", turn.turn_id
            )


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _recalled(
    record_id: str, collection: str, text: str, score: float, meta: Mapping[str, Any]
) -> RecalledMemory:
    return RecalledMemory(
        record_id,
        collection,
        text,
        score,
        _number(meta.get("created_at")),
        _number(meta.get("staleness_ratio")) or 0.0,
        is_superseded(meta),
        PurePath(str(meta.get("file_path") or "")).name,
    )
