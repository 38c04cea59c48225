"""The persisted lexical index: a start loads it instead of re-tokenising, stays in step with the store,
recovers from a damaged file, and forgets purged text at once."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memory.bm25 import BM25Index, tokenize
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.lexical import LexicalIndexes
from memory.lexical_store import LEXICAL_FILE, LexicalStore, open_lexical_store
from memory.service import MemoryService
from memory.vector_store import Metadata, Record, VectorStore
from tests.unit.memory.profile_helpers import committed_profiles

NOW = 1_700_000_000.0
WORDS = "garden hiking dolomites espresso kidney cat miso paint cello piano tokyo lisbon rain".split()


def turn(i: int, text: str, session: str = "s1") -> Record:
    meta: Metadata = {"created_at": NOW - 1000 + i, "session_id": session, "turn_id": f"t{i}", "seq": i}
    return Record(f"conv_t{i}", text, meta)


def fact(record_id: str, subject: str, predicate: str, obj: str) -> Record:
    meta: Metadata = {"created_at": NOW, "subject": subject, "predicate": predicate, "object": obj}
    return Record(record_id, f"{subject} | {predicate} | {obj}", meta)


def open_service(store: VectorStore, folder: Path) -> MemoryService:
    """A service over `store` with its lexical index persisted in `folder`, as the composition root builds
    it."""
    persisted = open_lexical_store(folder / LEXICAL_FILE)
    service = MemoryService(store, committed_profiles(), lexical=LexicalIndexes(persisted=persisted))
    service.open()
    return service


def reopen(service: MemoryService, folder: Path) -> MemoryService:
    service.lexical.close()  # the store stays: it stands for Chroma's files on disk
    return open_service(service.store, folder)


@pytest.fixture
def store() -> InMemoryStore:
    return InMemoryStore(HashingEmbedder(256))


def test_a_loaded_index_scores_exactly_like_one_built_document_by_document() -> None:
    rng = random.Random(3)
    docs = [(f"d{i}", " ".join(rng.choices(WORDS, k=rng.randint(1, 12)))) for i in range(200)]
    built = BM25Index(k1=0.9, b=0.4)
    for doc_id, text in docs:
        built.add(doc_id, text)
    vocab = sorted({t for _, text in docs for t in tokenize(text)})
    term_id = {t: i for i, t in enumerate(vocab)}
    import numpy as np

    loaded = BM25Index(k1=0.9, b=0.4)
    loaded.load(vocab, [(d, np.asarray([term_id[t] for t in tokenize(text)], np.int32)) for d, text in docs])
    # later writes land on both: a replaced and a removed loaded document, a new one
    for index in (built, loaded):
        index.upsert("d5", "miso cello cello")
        index.remove("d7")
        index.add("d_new", "tokyo rain garden")
    for query in ("cello", "garden hiking", "tokyo rain lisbon", "miso"):
        found, expected = loaded.search(query, 300), built.search(query, 300)
        assert [d for d, _ in found] == [d for d, _ in expected]  # same order, ties included
        assert [s for _, s in found] == pytest.approx([s for _, s in expected])
        assert loaded.scores(query) == pytest.approx(built.scores(query))
    assert loaded.terms_of("d9") == built.terms_of("d9")
    assert len(loaded) == len(built) == 200


def test_nothing_is_reindexed_when_nothing_changed(store: InMemoryStore, tmp_path: Path) -> None:
    first = open_service(store, tmp_path)
    assert first.reindexed == {}  # an empty store, an empty index
    first.write_turns([turn(1, "quantum gardening notes"), turn(2, "more about it")])
    first.add("facts", [fact("fact_1", "Miso", "has", "kidney disease")])
    again = reopen(first, tmp_path)
    assert again.reindexed == {}  # loaded from the file: no document re-tokenised
    assert again.lexical.size("conversations") == 2
    assert set(again.lexical.search("conversations", "gardening", 5)) == {"conv_t1", "conv_t2"}  # context
    assert set(again.lexical.search("facts", "kidney", 5)) == {"fact_1"}


def test_records_written_around_the_index_are_reconciled_at_start(
    store: InMemoryStore, tmp_path: Path
) -> None:
    first = open_service(store, tmp_path)
    first.write_turns([turn(1, "quantum gardening notes")])
    # a crash between the store write and the index write: the store holds a turn the index lacks
    vector = store.embedder.embed(["espresso machine"])
    store.upsert("conversations", [turn(2, "a new espresso machine")], vector)
    again = reopen(first, tmp_path)
    assert again.reindexed == {"conversations": 1}
    assert "conv_t2" in again.lexical.search("conversations", "espresso", 5)
    assert reopen(again, tmp_path).reindexed == {}  # the repair was persisted


def test_a_damaged_index_file_is_moved_aside_and_rebuilt_from_the_store(
    store: InMemoryStore, tmp_path: Path
) -> None:
    first = open_service(store, tmp_path)
    first.write_turns([turn(1, "quantum gardening notes"), turn(2, "cello lessons on Tuesday")])
    first.lexical.close()
    path = tmp_path / LEXICAL_FILE
    path.write_bytes(b"not a database, " * 512)
    again = open_service(store, tmp_path)
    assert again.reindexed == {"conversations": 2}
    assert "conv_t2" in again.lexical.search("conversations", "cello", 5)
    aside = [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"not a database")  # kept, never deleted
    assert reopen(again, tmp_path).reindexed == {}


def test_a_stale_tokenizer_version_rebuilds_the_rows(store: InMemoryStore, tmp_path: Path) -> None:
    first = open_service(store, tmp_path)
    first.write_turns([turn(1, "quantum gardening notes")])
    first.lexical.close()
    old = LexicalStore(tmp_path / LEXICAL_FILE)
    old.reset("an-older-tokenizer")
    old.close()
    assert open_service(store, tmp_path).reindexed == {"conversations": 1}


def test_a_purge_removes_text_from_the_lexical_index_now_and_after_restart(
    store: InMemoryStore, tmp_path: Path
) -> None:
    service = open_service(store, tmp_path)
    service.write_turns([turn(1, "my secret diary entry"), turn(2, "cello lessons")])
    service.add("facts", [fact("fact_1", "diary", "is", "secret")])
    service.delete("facts", ["fact_1"])
    service.delete("conversations", ["conv_t1"])
    assert service.lexical.search("facts", "secret diary", 5) == {}
    assert "conv_t1" not in service.lexical.search("conversations", "secret diary", 5)
    assert service.payloads.get("facts", ["fact_1"]) == []
    again = reopen(service, tmp_path)
    assert again.reindexed == {}
    assert again.lexical.search("facts", "secret diary", 5) == {}
    assert "conv_t1" not in again.lexical.search("conversations", "secret diary", 5)


def test_payloads_of_earlier_records_are_read_from_the_store_on_first_use(
    store: InMemoryStore, tmp_path: Path
) -> None:
    first = open_service(store, tmp_path)
    first.write_turns([turn(1, "quantum gardening notes")])
    again = reopen(first, tmp_path)
    [(record, vector)] = again.payloads.get("conversations", ["conv_t1"])
    assert record.text == "quantum gardening notes"
    [(_, stored)] = store.get_with_vectors("conversations", ["conv_t1"])
    assert vector == pytest.approx(stored, abs=1e-2)
    assert again.payloads.get("conversations", ["conv_missing"]) == []
