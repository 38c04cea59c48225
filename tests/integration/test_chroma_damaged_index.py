"""A damaged vector index in the embedded Chroma store (real chromadb): index files whose sizes disagree
(which would crash Chroma's native code) are set aside before Chroma opens them, one Chroma cannot load is
caught when it fails; either way the next operation rebuilds the collection from the texts Chroma's SQLite
file holds, keeps the damaged files aside, and answers; a rebuild cut short by a crash finishes on the next
use; the memory service's rule embeds a rebuilt turn as a live write does."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from memory.chroma_index_files import index_problem, vector_segments
from memory.chroma_store import REBUILD_SUFFIX, ChromaStore
from memory.collections import COLLECTIONS
from memory.embeddings import HashingEmbedder
from memory.vector_store import Record

RECORDS = 350  # past the sync threshold: Chroma has written the index to disk
EMBEDDER = HashingEmbedder(512)  # wide enough that no two of the texts share a vector


def seeded(folder: Path) -> Path:
    store = ChromaStore.embedded(folder, EMBEDDER)
    store.ensure_collections(COLLECTIONS)
    records = [
        Record(f"conv_{i}", f"User: note {i} about the {['harbour', 'kiln', 'orchard'][i % 3]} {i}", meta(i))
        for i in range(RECORDS)
    ]
    store.upsert("conversations", records)
    store.close()
    segment = next((s for s, name in vector_segments(folder).items() if name == "conversations"), None)
    assert segment is not None and (folder / segment / "header.bin").is_file()
    assert index_problem(folder / segment) is None  # a whole index passes the check
    return folder / segment


def meta(i: int) -> dict[str, str | int | float | bool]:
    return {"created_at": float(i), "session_id": "s", "turn_id": f"t{i}", "seq": i}


def opened(folder: Path) -> ChromaStore:
    store = ChromaStore.embedded(folder, EMBEDDER)
    store.ensure_collections(COLLECTIONS)
    return store


def nearest(store: ChromaStore, i: int) -> list[str]:
    """The five nearest to record i's own text (the index is approximate: the record is among them)."""
    text = f"User: note {i} about the {['harbour', 'kiln', 'orchard'][i % 3]} {i}"
    return [hit.id for hit in store.query("conversations", EMBEDDER.embed([text])[0], 5)]


def every_vector_is_its_text(store: ChromaStore) -> bool:
    stored = store.get_with_vectors("conversations")
    texts = EMBEDDER.embed([record.text for record, _ in stored])
    pairs = zip(stored, texts, strict=True)
    return len(stored) == RECORDS and all(np.allclose(v, t, atol=1e-5) for (_, v), t in pairs)


def damage_header(segment: Path) -> None:
    (segment / "header.bin").write_bytes(os.urandom(100))


def damage_pickle(segment: Path) -> None:
    (segment / "index_metadata.pickle").write_bytes(b"not a pickle at all")


def cut_vectors_short(segment: Path) -> None:
    vectors = segment / "data_level0.bin"
    vectors.write_bytes(vectors.read_bytes()[: vectors.stat().st_size // 3])


def empty_vectors(segment: Path) -> None:
    (segment / "data_level0.bin").write_bytes(b"")


DAMAGES = [damage_header, damage_pickle, cut_vectors_short, empty_vectors]


@pytest.mark.parametrize("damage", DAMAGES, ids=["header", "pickle", "vectors-cut-short", "vectors-empty"])
def test_a_damaged_index_is_rebuilt_by_the_first_search_and_kept_aside(
    tmp_path: Path, damage: Callable[[Path], None], caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "chroma"
    segment = seeded(folder)
    damage(segment)
    store = opened(folder)
    try:
        with caplog.at_level(logging.WARNING, logger="memory.chroma_store"):
            assert "conv_7" in nearest(store, 7)  # every vector is back, not only the recent ones
        assert "conv_201" in nearest(store, 201)
        assert every_vector_is_its_text(store)
        assert store.count("conversations") == RECORDS
        assert store.get("conversations", ["conv_0"])[0].metadata["turn_id"] == "t0"
    finally:
        store.close()
    kept = list(folder.glob(f"{segment.name}.corrupt-*"))
    assert len(kept) == 1 and (kept[0] / "data_level0.bin").is_file()  # the damaged files, never deleted
    assert not list(folder.glob(f"*{REBUILD_SUFFIX}"))
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "could not be loaded" in said and f"rebuilt the vector index of conversations: {RECORDS}" in said
    again = opened(folder)  # the rebuilt index was persisted whole
    try:
        assert "conv_7" in nearest(again, 7) and every_vector_is_its_text(again)
    finally:
        again.close()


def test_a_rebuild_cut_short_finishes_on_the_next_use(tmp_path: Path) -> None:
    folder = tmp_path / "chroma"
    segment = seeded(folder)
    damage_header(segment)
    store = opened(folder)
    calls = 0

    def dies_half_way(collection: str, records: list[Record]) -> np.ndarray:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise KeyboardInterrupt  # the process stops mid-rebuild
        return EMBEDDER.embed([r.text for r in records])

    store.embed_for_rebuild = dies_half_way  # type: ignore[assignment]
    with pytest.raises(KeyboardInterrupt):
        store.count("conversations")
    store.close()
    assert (folder / f"conversations{REBUILD_SUFFIX}").is_file()
    store = opened(folder)
    try:
        assert "conv_7" in nearest(store, 7) and "conv_349" in nearest(store, 349)
        assert every_vector_is_its_text(store)
    finally:
        store.close()
    assert not (folder / f"conversations{REBUILD_SUFFIX}").exists()
    assert len(list(folder.glob(f"{segment.name}.corrupt-*"))) == 1  # moved aside once


def test_the_memory_service_rebuilds_a_turn_with_the_vector_a_live_write_gave_it(tmp_path: Path) -> None:
    from memory.service import MemoryService
    from tests.unit.memory.profile_helpers import committed_profiles

    service = MemoryService(opened(tmp_path / "chroma"), committed_profiles())
    service.open()
    turns = [
        Record("conv_a", "User: Did you book the ferry?\nAssistant: Not yet.", {**meta(1), "turn_id": "a"}),
        Record("conv_b", "User: Yes, for May.\nAssistant: Noted.", {**meta(2), "turn_id": "b"}),
    ]
    service.write_turns(turns)
    live = {record.id: vector for record, vector in service.store.get_with_vectors("conversations")}
    rebuilt = service.vectors_for("conversations", service.store.get("conversations", ["conv_a", "conv_b"]))
    assert np.allclose(rebuilt[1], live["conv_b"])  # "Yes, for May." embedded with the question it answered
    assert not np.allclose(rebuilt[1], EMBEDDER.embed(["User: Yes, for May."])[0])
    service.store.close()


def test_the_memory_service_rebuilds_damaged_turns_through_its_own_reads(tmp_path: Path) -> None:
    """The live-write rule reads the store (each turn's previous turn) while the rebuild runs."""
    from memory.service import MemoryService
    from tests.unit.memory.profile_helpers import committed_profiles

    folder = tmp_path / "chroma"
    damage_pickle(seeded(folder))
    store = opened(folder)
    service = MemoryService(store, committed_profiles())
    store.embed_for_rebuild = service.vectors_for
    try:
        assert store.count("conversations") == RECORDS  # would wait forever if the rebuild locked itself out
        assert len(store.get_with_vectors("conversations")) == RECORDS
    finally:
        store.close()
