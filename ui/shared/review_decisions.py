"""The review queue's decisions, one path for the terminal's `review` and the GUI's Memory tab: the open
items with their records, approving one (the others hidden, never deleted; the fact not kept retired when it
resolves a contradiction) and undoing a decision (the records shown again, the fact reinstated)."""

from __future__ import annotations

from typing import Any

from core.errors import UserInputError
from core.ports import FactPort
from memory.review import ReviewItem, ReviewQueue
from memory.service import MemoryService


def review_rows(queue: ReviewQueue, memory: MemoryService) -> list[dict[str, Any]]:
    """The open items as `review list --json` shows them, with their records' text."""
    return [_row(item, memory) for item in queue.open_items()]


def approve_item(
    queue: ReviewQueue, memory: MemoryService, facts: FactPort | None, item_id: str, keep: str | None = None
) -> ReviewItem:
    """Approve an open item (the CLI's and the GUI's one path): keep `keep` (default: the newest record),
    hide the others, and retire the fact not kept when it resolves a contradiction."""
    item = open_item(queue, item_id)
    decided = queue.approve(item.id, keep or _newest(item, memory))
    _retire_facts(decided, facts, current=False)
    return decided


def undo_item(queue: ReviewQueue, facts: FactPort | None, item_id: str) -> ReviewItem:
    """Revert a decision: the hidden records are visible again, a retired fact is current again."""
    item = open_item(queue, item_id)
    _retire_facts(item, facts, current=True)
    queue.undo(item.id)
    return item


def open_item(queue: ReviewQueue, item_id: str) -> ReviewItem:
    """The item with this id, or a clear error naming `review list`."""
    item = queue.get(item_id)
    if item is None:
        raise UserInputError(f"no review item {item_id!r}; `review list` shows the open ones")
    return item


def _row(item: ReviewItem, memory: MemoryService) -> dict[str, Any]:
    records = memory.store.get(item.collection, list(item.record_ids))
    return {
        "id": item.id,
        "kind": item.kind,
        "collection": item.collection,
        "explanation": item.explanation,
        "score": item.score,
        "records": [{"id": r.id, "text": r.text} for r in records],
    }


def _newest(item: ReviewItem, memory: MemoryService) -> str:
    records = memory.store.get(item.collection, list(item.record_ids))
    if not records:
        return item.record_ids[0]
    return max(records, key=lambda r: float(r.metadata.get("created_at", 0.0))).id


def _retire_facts(item: ReviewItem, facts: FactPort | None, *, current: bool) -> None:
    if facts is None or item.kind != "contradiction" or item.status != "approved":
        return  # only an approval of a contradiction retired facts (and only its undo reinstates them)
    reason = "reinstated: the review decision was undone" if current else "you resolved a contradiction"
    for fact_id in item.hidden:
        facts.set_current(fact_id, current, reason)
