"""`memory search|stats` and `bench retrieval|latency`: thin front ends over services built in app/."""

from __future__ import annotations

import asyncio
import time

from core.config_memory import INTENT_NAMES, MEMORY_COLLECTION_NAMES
from core.errors import UserInputError
from memory.candidates import QueryContext
from memory.service import factors_payload
from ui.shared.front_ports import Searchable
from ui.shared.payloads import print_json


def memory_search(
    service: Searchable,
    query: str,
    *,
    collection: str | None,
    k: int,
    intent: str,
    as_json: bool,
) -> int:
    """Run the normal search path and show each result with the factors of its score."""
    _check_choice("intent", intent, INTENT_NAMES)
    if collection is not None:
        _check_choice("collection", collection, MEMORY_COLLECTION_NAMES)
    ctx = QueryContext(query=query, now=time.time(), intent=intent)
    collections = [collection] if collection else None
    results = asyncio.run(service.search(ctx, collections=collections, k=k))
    if as_json:
        print_json({"query": query, "intent": intent, "results": [factors_payload(r) for r in results]})
        return 0
    if not results:
        print("nothing found")
    for rank, item in enumerate(results, 1):
        text = item.text.replace("\n", " ")
        print(f"{rank:>2}. [{item.collection}] {item.score:.3f}  {text[:150]}")
    return 0


def _check_choice(what: str, value: str, known: tuple[str, ...]) -> None:
    if value not in known:
        raise UserInputError(f"unknown {what} {value!r}; choose one of: {', '.join(known)}")


def memory_stats(service: Searchable, *, as_json: bool) -> int:
    """Records per collection."""
    counts = service.stats()
    if as_json:
        print_json({"collections": counts, "total": sum(counts.values())})
        return 0
    for name, count in counts.items():
        print(f"{name:<20} {count}")
    print(f"{'total':<20} {sum(counts.values())}")
    return 0
