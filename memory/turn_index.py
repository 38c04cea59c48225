"""Per-turn storage: every finished turn goes to the journal first, then to `conversations`.

The record id is derived from the journal's turn id, so indexing is idempotent: a crash between the store
write and the journal's `indexed_at` mark is repaired at start-up by writing the same id again, never a
duplicate.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.ports import TurnRecord, conversation_id
from memory.importance import turn_importance
from memory.journal import Journal
from memory.vector_store import Record

logger = logging.getLogger(__name__)


def turn_text(turn: TurnRecord) -> str:
    """What is embedded and shown for a turn."""
    if turn.assistant:
        return f"User: {turn.user}{_REPLY}{turn.assistant}"
    return f"User: {turn.user}"


_REPLY = "\nAssistant: "
IMPORTED = "import:"  # the `model` of an exchange imported from elsewhere: both speakers were people


def searchable_text(text: str, metadata: Mapping[str, Any]) -> str:
    """What a conversation record is found by: a live turn's user words only. Daemon's reply is stored and
    shown with it, but a reply is not evidence: a wrong answer must never make the turn outrank what the
    user said. An imported exchange (a chat export, a benchmark's conversation) is searched whole."""
    if str(metadata.get("model", "")).startswith(IMPORTED):
        return text
    return text.split(_REPLY, 1)[0]


def turn_record(turn: TurnRecord) -> Record:
    """The `conversations` record of a finished turn, with provenance."""
    cited = [c.get("id") for c in turn.citations if isinstance(c, dict) and c.get("id")]
    metadata: dict[str, str | int | float | bool] = {
        "created_at": turn.created_at,
        "session_id": turn.session_id,
        "turn_id": turn.turn_id,
        "seq": turn.seq,
        "model": turn.model,
        "source": "journal",
        "importance": turn_importance(turn.user, turn.assistant),
        "truth": 0.5,
    }
    if cited:
        metadata["cited_ids"] = json.dumps(cited)
    return Record(conversation_id(turn.turn_id), turn_text(turn), metadata)


class TurnIndexer:
    """Copies finished journal turns into the `conversations` collection."""

    def __init__(self, write: Callable[[Sequence[Record]], None], journal: Journal) -> None:
        self._write = write  # MemoryService.write_turns: embeds with context, updates the lexical index
        self._journal = journal

    def index(self, turns: Sequence[TurnRecord]) -> int:
        """Write these turns (idempotent) and mark them indexed; returns how many were written."""
        records = [turn_record(t) for t in turns if t.status in ("complete", "cancelled") and t.user]
        if records:
            self._write(records)
        self._journal.mark_indexed([t.turn_id for t in turns])
        return len(records)

    def repair(self, batch: int = 500) -> int:
        """Index every finished turn the journal has not marked yet (start-up, after a crash)."""
        total = 0
        while pending := self._journal.unindexed_turns(batch):
            total += self.index(pending)
        if total:
            logger.info("re-indexed %d journal turns missing from long-term memory", total)
        return total
