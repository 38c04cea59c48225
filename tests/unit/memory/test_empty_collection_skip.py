"""A collection that holds nothing is not searched; one that holds something is, tombstones included in the
count but never in the results."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memory.candidates import QueryContext
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.retrieval import RetrievalSettings
from memory.service import MemoryService
from memory.vector_store import Metadata, Record, VectorStore
from tests.unit.memory.profile_helpers import committed_profiles

FACT: Metadata = {"subject": "user", "predicate": "likes", "object": "basil", "created_at": 1.0}


def spied(store: VectorStore) -> list[str]:
    """The collections each dense query touched, in order."""
    queried: list[str] = []
    real: Callable[..., Any] = store.query

    def query(collection: str, *args: Any, **kwargs: Any) -> Any:
        queried.append(collection)
        return real(collection, *args, **kwargs)

    store.query = query  # type: ignore[method-assign]  # a spy on this one store
    return queried


def service_with_a_turn(settings: RetrievalSettings | None = None) -> MemoryService:
    service = MemoryService(InMemoryStore(HashingEmbedder(128)), committed_profiles(), settings)
    service.open()
    meta: Metadata = {"turn_id": "t1", "session_id": "s1", "created_at": 1.0}
    service.write_turns([Record("conv_t1", "we planted basil in the garden", meta)])
    return service


async def search(service: MemoryService, query: str = "basil garden") -> list[str]:
    found = await service.search(QueryContext(query=query, now=10.0, intent="general"), k=10)
    return [m.id for m in found]


async def test_only_collections_holding_records_are_searched() -> None:
    service = service_with_a_turn()
    queried = spied(service.store)
    assert await search(service) == ["conv_t1"]
    assert queried == ["conversations"]
    service.add("facts", [Record("fact_1", "the user likes basil", FACT)])
    queried.clear()
    assert set(await search(service)) == {"conv_t1", "fact_1"}
    assert sorted(queried) == ["conversations", "facts"]


async def test_the_baseline_setting_searches_every_enabled_collection() -> None:
    service = service_with_a_turn(RetrievalSettings(skip_empty=False))
    queried = spied(service.store)
    await search(service)
    assert set(queried) == set(committed_profiles().get("general").enabled_collections)


async def test_records_written_before_a_restart_count_after_it() -> None:
    first = service_with_a_turn()
    first.add("facts", [Record("fact_1", "the user likes basil", FACT)])
    again = MemoryService(first.store, committed_profiles())
    again.open()  # the lexical index is rebuilt from the store: its sizes are the counts
    queried = spied(again.store)
    assert "fact_1" in await search(again)
    assert sorted(queried) == ["conversations", "facts"]


async def test_a_tombstoned_record_keeps_its_collection_searched_but_is_never_returned() -> None:
    service = service_with_a_turn()
    service.add("facts", [Record("fact_1", "the user likes basil", FACT)])
    assert service.update_metadata("facts", {"fact_1": {"deleted_at": 5.0}}) == 1
    queried = spied(service.store)
    assert await search(service) == ["conv_t1"]
    assert "facts" in queried
    assert service.latest("facts", 5) == []
    assert service.store.get("facts", ids=["fact_1"])[0].text == "the user likes basil"  # kept
