"""`review`: the dedup scan's proposals, decided by the user. Approving hides (never deletes); undo shows
again. Resolving a contradiction between facts also retires the fact not kept (kept as history). Only
`review purge --yes` removes text, and only of records the user hid."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.errors import UserInputError
from core.ports import FactPort
from memory.review import ReviewItem, ReviewQueue
from memory.service import MemoryService
from ui.terminal.chat import print_json


def review_command(
    action: str, queue: ReviewQueue, memory: MemoryService, facts: FactPort | None, args: Any
) -> int:
    """One `review` action, by its name in `REVIEW_ACTIONS`."""
    return REVIEW_ACTIONS[action](queue, memory, facts, args)


def _list_open(queue: ReviewQueue, memory: MemoryService, facts: FactPort | None, args: Any) -> int:
    return _list(queue, memory, as_json=args.json)


def _purge_hidden(queue: ReviewQueue, memory: MemoryService, facts: FactPort | None, args: Any) -> int:
    return _purge(queue, memory, confirmed=args.yes)


def _approve(queue: ReviewQueue, memory: MemoryService, facts: FactPort | None, args: Any) -> int:
    item = _open_item(queue, args.item)
    decided = approve_item(queue, memory, facts, item.id, args.keep)
    print(f"kept {decided.keep}; hid {', '.join(decided.hidden)} (undo with `review undo {item.id}`)")
    return 0


def _dismiss(queue: ReviewQueue, memory: MemoryService, facts: FactPort | None, args: Any) -> int:
    item = _open_item(queue, args.item)
    queue.dismiss(item.id)
    print(f"dismissed {item.id}; it will not be proposed again")
    return 0


def _undo(queue: ReviewQueue, memory: MemoryService, facts: FactPort | None, args: Any) -> int:
    item = _open_item(queue, args.item)
    _retire_facts(item, facts, current=True)
    queue.undo(item.id)
    print(f"undone {item.id}; its records are visible again")
    return 0


def _open_item(queue: ReviewQueue, item_id: str) -> ReviewItem:
    item = queue.get(item_id)
    if item is None:
        raise UserInputError(f"no review item {item_id!r}; `review list` shows the open ones")
    return item


ReviewAction = Callable[[ReviewQueue, MemoryService, "FactPort | None", Any], int]
REVIEW_ACTIONS: dict[str, ReviewAction] = {
    "list": _list_open,
    "approve": _approve,
    "dismiss": _dismiss,
    "undo": _undo,
    "purge": _purge_hidden,
}


def approve_item(
    queue: ReviewQueue, memory: MemoryService, facts: FactPort | None, item_id: str, keep: str | None = None
) -> ReviewItem:
    """Approve an open item (the CLI's and the GUI's one path): keep `keep` (default: the newest record),
    hide the others, and retire the fact not kept when it resolves a contradiction."""
    item = _open_item(queue, item_id)
    decided = queue.approve(item.id, keep or _newest(item, memory))
    _retire_facts(decided, facts, current=False)
    return decided


def review_rows(queue: ReviewQueue, memory: MemoryService) -> list[dict[str, Any]]:
    """The open items as `review list --json` shows them, with their records' text."""
    return [_row(item, memory) for item in queue.open_items()]


def _list(queue: ReviewQueue, memory: MemoryService, *, as_json: bool) -> int:
    rows = review_rows(queue, memory)
    if as_json:
        print_json({"items": rows})
        return 0
    if not rows:
        print("Nothing to review.")
    for row in rows:
        print(f"{row['id']}  {row['kind']} in {row['collection']}: {row['explanation']}")
        for record in row["records"]:
            print(f"    {record['id']}: {' '.join(record['text'].split())[:120]}")
    return 0


def _purge(queue: ReviewQueue, memory: MemoryService, *, confirmed: bool) -> int:
    """Remove the text of approved, hidden records from the store for good (explicit and confirmed only).
    The store, the lexical index and the payload mirror drop them at once."""
    eligible = [record for ids in queue.hidden.purgeable().values() for record in ids]
    if not eligible:
        print("Nothing to purge: only records you hid by approving a review item can be purged.")
        return 0
    if not confirmed:
        print(f"{len(eligible)} hidden record(s) would be removed for good; `review purge --yes` does it.")
        return 1
    result = queue.hidden.purge(eligible, memory.delete, confirm=True)
    print(f"purged {len(result.purged)} record(s); this cannot be undone")
    return 0


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
