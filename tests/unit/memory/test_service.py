"""The memory service: writes (contextual turn vectors, lexical index), search, limits, expansion."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from memory.candidates import QueryContext
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.lexical import LexicalIndexes, previous_texts
from memory.retrieval import RetrievalSettings, Retriever
from memory.service import MemoryService
from memory.vector_store import Hit, Metadata, Record, Where
from tests.unit.memory.profile_helpers import committed_profiles

NOW = 1_700_000_000.0


def turn(i: int, text: str, session: str = "s1") -> Record:
    meta: Metadata = {"created_at": NOW - 1000 + i, "session_id": session, "turn_id": f"t{i}", "seq": i}
    return Record(f"conv_t{i}", text, meta)


@pytest.fixture
def service() -> MemoryService:
    svc = MemoryService(InMemoryStore(HashingEmbedder(256)), committed_profiles())
    svc.open()
    return svc


def test_turn_vectors_embed_the_previous_turn_of_the_session(service: MemoryService) -> None:
    service.write_turns([turn(1, "Where did you go hiking last summer?"), turn(2, "The Dolomites, in July.")])
    service.write_turns([turn(3, "That sounds amazing.")])  # previous turn found in the store
    vectors = {r.id: v for r, v in service.store.get_with_vectors("conversations", ["conv_t2", "conv_t3"])}
    embed = service.embedder.embed
    expected_2 = embed(["Where did you go hiking last summer?\nThe Dolomites, in July."])[0]
    expected_3 = embed(["The Dolomites, in July.\nThat sounds amazing."])[0]
    assert vectors["conv_t2"] == pytest.approx(expected_2, abs=1e-5)
    assert vectors["conv_t3"] == pytest.approx(expected_3, abs=1e-5)
    [stored] = service.store.get("conversations", ids=["conv_t2"])
    assert stored.text == "The Dolomites, in July."  # the record keeps its own text


async def test_a_reply_is_found_by_the_question_it_answered(service: MemoryService) -> None:
    service.write_turns(
        [
            turn(1, "Where did you go hiking last summer?"),
            turn(2, "The Dolomites, in July."),
            turn(3, "I bought a new espresso machine."),
            turn(4, "Nice, which brand?"),
        ]
    )
    found = await service.search(QueryContext(query="hiking last summer", now=NOW), k=4)
    assert {m.id for m in found[:2]} == {"conv_t1", "conv_t2"}
    assert all("relevance" in m.factors and "recency" in m.factors for m in found)
    assert sum(found[0].factors.values()) == pytest.approx(found[0].score, abs=1e-6)


async def test_search_spans_collections_and_respects_collection_choice(service: MemoryService) -> None:
    service.write_turns([turn(1, "my cat Miso has kidney disease")])
    fact_meta: Metadata = {
        "created_at": NOW,
        "subject": "Miso",
        "predicate": "has",
        "object": "kidney disease",
    }
    service.add("facts", [Record("fact_1", "Miso | has | kidney disease", fact_meta)])
    both = await service.search(QueryContext(query="Miso kidney", now=NOW, intent="factual_recall"), k=5)
    assert {m.collection for m in both} == {"conversations", "facts"}
    only = await service.search(QueryContext(query="Miso kidney", now=NOW), collections=["facts"], k=5)
    assert [m.id for m in only] == ["fact_1"]


def test_reopening_rebuilds_the_lexical_index(service: MemoryService) -> None:
    service.write_turns([turn(1, "quantum gardening notes"), turn(2, "more about it")])
    again = MemoryService(service.store, committed_profiles())
    again.open()
    assert again.lexical.size("conversations") == 2
    assert "conv_t1" in again.lexical.search("conversations", "gardening", 5)
    [(record, vector)] = again.payloads.get("conversations", ["conv_t1"])  # lexical hits need no store read
    assert record.text == "quantum gardening notes"
    [(_, stored)] = service.store.get_with_vectors("conversations", ["conv_t1"])
    assert vector == pytest.approx(stored, abs=1e-2)  # float16 mirror of the stored vector


def test_neighbours_are_the_session_turns_around_a_memory(service: MemoryService) -> None:
    service.write_turns([turn(i, f"message {i}") for i in range(1, 8)] + [turn(9, "other", "s2")])
    around = service.neighbours("conv_t4", window=2)
    assert [r.id for r in around] == ["conv_t2", "conv_t3", "conv_t4", "conv_t5", "conv_t6"]


def test_stats_lists_all_13_collections(service: MemoryService) -> None:
    service.write_turns([turn(1, "hello there")])
    stats = service.stats()
    assert len(stats) == 13 and stats["conversations"] == 1 and stats["facts"] == 0


def test_previous_texts_follow_session_order() -> None:
    records = [
        ("b", "second", {"session_id": "s", "created_at": 2.0}),
        ("a", "first", {"session_id": "s", "created_at": 1.0}),
        ("c", "alone", {"session_id": "t", "created_at": 1.5}),
    ]
    assert previous_texts(records) == {"a": None, "b": "first", "c": None}


async def test_a_slow_collection_is_skipped_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = InMemoryStore(HashingEmbedder(64))
    service = MemoryService(store, committed_profiles())
    service.open()
    service.write_turns([turn(1, "fast answer here")])
    fact: Metadata = {"subject": "user", "predicate": "likes", "object": "answers", "created_at": 1.0}
    service.add("facts", [Record("fact_1", "slow answer", fact)])  # an empty collection is not searched
    real_query = store.query

    def slow_query(collection: str, vector: np.ndarray, k: int, where: Where | None = None) -> list[Hit]:
        if collection == "facts":
            time.sleep(0.5)
        return real_query(collection, vector, k, where)

    monkeypatch.setattr(store, "query", slow_query)
    retriever = Retriever(store, service.lexical, service.payloads, RetrievalSettings(timeout_s=0.1))
    result = await retriever.candidates(
        "fast answer", store.embedder.embed_query("fast answer"), {"conversations": 5, "facts": 5}
    )
    assert result.failures == {"facts": "timed out"}
    assert [c.id for c in result.candidates] == ["conv_t1"]


def test_lexical_index_replaces_rewritten_records() -> None:
    lexical = LexicalIndexes()
    lexical.add("facts", [("f1", "Max is the dog", None)])
    lexical.add("facts", [("f1", "Rex is the dog", None)])
    assert lexical.search("facts", "Max", 5) == {}
    assert set(lexical.search("facts", "Rex", 5)) == {"f1"}
