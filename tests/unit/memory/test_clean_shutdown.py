"""The clean-shutdown marker over a real embedded Chroma store and the real persisted lexical index: a start
after a clean close trusts the index without reading the store; any other start (kill -9, a failed write,
a store changed by another process, a damaged index file) compares them and repairs the difference."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.chroma_store import VECTOR_SYNC_THRESHOLD, ChromaStore, embedding_function, files_state
from memory.collections import COLLECTIONS, MetadataError
from memory.embeddings import HashingEmbedder
from memory.lexical import LexicalIndexes
from memory.lexical_store import LEXICAL_FILE, open_lexical_store
from memory.service import MemoryService
from memory.vector_store import Metadata, Record
from tests.unit.memory.profile_helpers import committed_profiles

ROOT = Path(__file__).resolve().parents[3]
NOW = 1_700_000_000.0
DIM = 64


def turn(i: int, text: str, session: str = "s1") -> Record:
    meta: Metadata = {"created_at": NOW - 1000 + i, "session_id": session, "turn_id": f"t{i}", "seq": i}
    return Record(f"conv_t{i}", text, meta)


def open_service(folder: Path) -> MemoryService:
    """Chroma embedded in `folder/chroma` with its lexical index beside it, as the composition root builds
    them."""
    store = ChromaStore.embedded(folder / "chroma", HashingEmbedder(DIM))
    persisted = open_lexical_store(folder / LEXICAL_FILE)
    service = MemoryService(store, committed_profiles(), lexical=LexicalIndexes(persisted=persisted))
    service.open()
    return service


def written_and_closed(folder: Path) -> None:
    service = open_service(folder)
    service.write_turns([turn(1, "quantum gardening notes"), turn(2, "cello lessons on Tuesday")])
    service.close()


def test_a_start_after_a_clean_close_trusts_the_index_without_reading_the_store(tmp_path: Path) -> None:
    first = open_service(tmp_path)
    assert first.verified  # a new store: no marker yet
    first.write_turns([turn(1, "quantum gardening notes"), turn(2, "cello lessons on Tuesday")])
    meta: Metadata = {"created_at": NOW, "subject": "Miso", "predicate": "has", "object": "kidney disease"}
    first.add("facts", [Record("fact_1", "Miso | has | kidney disease", meta)])
    first.close()
    again = open_service(tmp_path)
    try:
        assert not again.verified and again.reindexed == {}
        assert set(again.lexical.search("conversations", "cello", 5)) == {"conv_t2"}
        assert again.indexed_count("facts") == 1 == again.store.count("facts")
        assert [r.id for r in again.store.get("conversations")] == ["conv_t1", "conv_t2"]
    finally:
        again.close()
    assert open_service(tmp_path).verified is False  # each clean close leaves a new marker


def test_a_start_that_was_never_closed_verifies(tmp_path: Path) -> None:
    written_and_closed(tmp_path)
    crashed = open_service(tmp_path)  # the marker is taken at open: a crash from here on leaves none
    crashed.store.close()
    crashed.lexical.close()  # closed without the service's close, as a dying process leaves it
    again = open_service(tmp_path)
    assert again.verified and again.reindexed == {}
    again.close()


def test_a_failed_write_leaves_no_marker(tmp_path: Path) -> None:
    service = open_service(tmp_path)
    bad = Record("conv_bad", "an unfinished turn", {"created_at": NOW, "mood": "not a field"})
    with pytest.raises(MetadataError):  # the store refuses the batch: this process may not vouch any more
        service.write_turns([turn(1, "quantum gardening notes"), bad])
    service.close()
    assert open_service(tmp_path).verified


def test_a_store_changed_by_another_process_after_a_clean_close_is_verified(tmp_path: Path) -> None:
    written_and_closed(tmp_path)
    other = ChromaStore.embedded(tmp_path / "chroma", HashingEmbedder(DIM))  # e.g. an older Daemon
    other.ensure_collections(COLLECTIONS)
    record = turn(3, "a new espresso machine")
    other.upsert("conversations", [record], other.embedder.embed([record.text]))
    other.close()
    again = open_service(tmp_path)
    try:
        assert again.verified and again.reindexed == {"conversations": 1}
        assert "conv_t3" in again.lexical.search("conversations", "espresso", 5)
    finally:
        again.close()


def test_a_damaged_index_file_after_a_clean_close_is_rebuilt_from_the_store(tmp_path: Path) -> None:
    written_and_closed(tmp_path)
    (tmp_path / LEXICAL_FILE).write_bytes(b"not a database, " * 512)
    again = open_service(tmp_path)
    try:
        assert again.verified and again.reindexed == {"conversations": 2}
        assert "conv_t2" in again.lexical.search("conversations", "cello", 5)
    finally:
        again.close()
    assert [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]  # kept aside, never deleted


def test_the_store_files_are_as_the_last_close_left_them_and_warming_stops_at_close(tmp_path: Path) -> None:
    written_and_closed(tmp_path)
    store = ChromaStore.embedded(tmp_path / "chroma", HashingEmbedder(DIM))
    store.ensure_collections(COLLECTIONS)
    store.warm([spec.name for spec in COLLECTIONS])
    assert store.count("conversations") == 2  # reads work while the collections warm
    assert store.closed_state() is None
    store.close()  # stops the warming thread and waits for it
    state = store.closed_state()
    assert state == files_state(tmp_path / "chroma")
    assert ChromaStore.embedded(tmp_path / "chroma", HashingEmbedder(DIM)).opened_state() == state


def test_collections_persist_their_vectors_every_hundred_writes_old_ones_included(tmp_path: Path) -> None:
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=str(tmp_path), settings=Settings(anonymized_telemetry=False))
    client.get_or_create_collection(  # as an older Daemon created it: chromadb's persist interval
        "facts",
        embedding_function=embedding_function(HashingEmbedder(DIM)),
        configuration={"hnsw": {"space": "cosine"}},
        metadata={"tier": "semantic", "embedder": "hashing", "dim": DIM},
    )
    assert client.get_collection("facts").configuration_json["hnsw"]["sync_threshold"] == 1000
    store = ChromaStore(client, HashingEmbedder(DIM), where=str(tmp_path))
    store.ensure_collections(COLLECTIONS)
    for spec in COLLECTIONS:
        hnsw = client.get_collection(spec.name).configuration_json["hnsw"]
        assert (spec.name, hnsw["sync_threshold"]) == (spec.name, VECTOR_SYNC_THRESHOLD)
    store.close()


def test_a_store_without_its_own_folder_never_vouches_for_itself(tmp_path: Path) -> None:
    """A Chroma server (built like this, with no folder) or the in-memory store: always verified."""
    import chromadb
    from chromadb.config import Settings

    from memory.inmemory_store import InMemoryStore

    client = chromadb.PersistentClient(path=str(tmp_path), settings=Settings(anonymized_telemetry=False))
    for store in (
        ChromaStore(client, HashingEmbedder(DIM), where="server"),
        InMemoryStore(HashingEmbedder(DIM)),
    ):
        store.ensure_collections(COLLECTIONS)
        store.warm(["facts"])  # nothing to load: a no-op
        assert store.opened_state() is None
        store.close()
        assert store.closed_state() is None
