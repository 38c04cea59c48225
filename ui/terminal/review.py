"""`review`: the dedup scan's proposals, decided by the user. Approving hides (never deletes); undo shows
again. Resolving a contradiction between facts also retires the fact not kept (kept as history). Only
`review purge --yes` removes text, and only of records the user hid."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.ports import FactPort
from memory.review import ReviewQueue
from memory.service import MemoryService
from ui.shared.payloads import print_json
from ui.shared.review_decisions import approve_item, open_item, review_rows, undo_item


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
    item = open_item(queue, args.item)
    decided = approve_item(queue, memory, facts, item.id, args.keep)
    print(f"kept {decided.keep}; hid {', '.join(decided.hidden)} (undo with `review undo {item.id}`)")
    return 0


def _dismiss(queue: ReviewQueue, memory: MemoryService, facts: FactPort | None, args: Any) -> int:
    item = open_item(queue, args.item)
    queue.dismiss(item.id)
    print(f"dismissed {item.id}; it will not be proposed again")
    return 0


def _undo(queue: ReviewQueue, memory: MemoryService, facts: FactPort | None, args: Any) -> int:
    item = undo_item(queue, facts, args.item)
    print(f"undone {item.id}; its records are visible again")
    return 0


ReviewAction = Callable[[ReviewQueue, MemoryService, "FactPort | None", Any], int]
REVIEW_ACTIONS: dict[str, ReviewAction] = {
    "list": _list_open,
    "approve": _approve,
    "dismiss": _dismiss,
    "undo": _undo,
    "purge": _purge_hidden,
}


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
