"""The optional Wikipedia FAISS index: the documented files, refusal of foreign vectors, silent absence, and
search through the memory pipeline as `wiki_knowledge` (flat and IVF-PQ indexes built here from MiniLM
embeddings of generated articles)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from knowledge.wikipedia import (
    INDEX_FILE,
    METADATA_FILE,
    WIKI_KNOWLEDGE,
    Passage,
    WikipediaIndex,
    WikipediaIndexError,
    load_wikipedia,
    write_metadata,
)
from memory.candidates import QueryContext
from memory.inmemory_store import InMemoryStore
from memory.service import MemoryService
from memory.vector_store import Metadata, Record
from tests.unit.memory.profile_helpers import committed_profiles

faiss = pytest.importorskip("faiss")

SUBJECTS = [
    ("Volcano", "a mountain that erupts lava, ash and gases from a magma chamber below the crust"),
    ("Violin", "a bowed string instrument with four strings tuned in fifths, played in orchestras"),
    ("Photosynthesis", "the process by which plants turn sunlight, water and carbon dioxide into sugar"),
    ("Glacier", "a slow river of ice that forms where snow accumulates faster than it melts"),
    ("Espresso", "strong coffee brewed by forcing hot water through finely ground beans"),
    ("Penguin", "a flightless seabird of the southern hemisphere that swims with flipper-like wings"),
    ("Chess", "a board game for two players with kings, queens, rooks, bishops, knights and pawns"),
    ("Saturn", "the sixth planet from the Sun, a gas giant famous for its bright rings"),
    ("Bread", "a staple food baked from flour, water and yeast that makes the dough rise"),
    ("Tsunami", "a series of huge ocean waves caused by an undersea earthquake or landslide"),
    ("Honeybee", "a social insect that collects nectar and pollen and makes honey and wax"),
    ("Marathon", "a long-distance running race of 42.195 kilometres"),
]
ASPECTS = ["history", "science", "culture", "records"]


def articles() -> list[Passage]:
    """48 passages: each subject seen from four angles, ids 0..47."""
    out = []
    for i, (title, gist) in enumerate(SUBJECTS):
        for j, aspect in enumerate(ASPECTS):
            text = f"{title} is {gist}. This section covers the {aspect} of {title.lower()}."
            out.append(
                Passage(4 * i + j, f"{title} ({aspect})", text, f"https://en.wikipedia.org/wiki/{title}")
            )
    return out


@pytest.fixture(scope="module")
def minilm() -> Any:
    from memory.embeddings import MiniLMEmbedder

    return MiniLMEmbedder(threads=1)


@pytest.fixture(scope="module")
def vectors(minilm: Any) -> np.ndarray:
    return minilm.embed([p.text for p in articles()])


def build(folder: Path, vectors: np.ndarray, kind: str, passages: list[Passage] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    dim = vectors.shape[1]
    if kind == "flat":
        index = faiss.IndexFlatIP(dim)
    elif kind == "flat-l2":
        index = faiss.IndexFlatL2(dim)
    else:  # IVF-PQ: 4 lists, 48 sub-quantizers of 4 bits -- a real, tiny product-quantised index
        index = faiss.IndexIVFPQ(faiss.IndexFlatL2(dim), dim, 4, 48, 4)
        index.train(vectors)
    index.add(vectors)
    faiss.write_index(index, str(folder / INDEX_FILE))
    write_metadata(folder, passages if passages is not None else articles())
    return folder


def unit_vectors(rows: int, dim: int, seed: int = 3) -> np.ndarray:
    array = np.random.default_rng(seed).standard_normal((rows, dim)).astype(np.float32)
    return array / np.linalg.norm(array, axis=1, keepdims=True)


# --- refusal and absence (no model needed) ------------------------------------------------------------------


def test_vectors_of_another_dimension_are_refused_with_a_clear_message(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = build(tmp_path / "wiki", unit_vectors(48, 768), "flat")
    with pytest.raises(WikipediaIndexError, match=r"768-dimensional.*all-MiniLM-L6-v2 vectors \(384-d\)"):
        WikipediaIndex.open(folder)
    with caplog.at_level(logging.WARNING, logger="knowledge.wikipedia"):
        assert load_wikipedia(folder, top_k=5, nprobe=4) is None
    assert [r.getMessage() for r in caplog.records if "768-dimensional" in r.getMessage()]


def test_metadata_naming_another_embedder_is_refused(tmp_path: Path) -> None:
    folder = build(tmp_path / "wiki", unit_vectors(48, 384), "flat")
    write_metadata(folder, articles(), embedder="text-embedding-3-small")
    with pytest.raises(WikipediaIndexError, match="text-embedding-3-small"):
        WikipediaIndex.open(folder)


def test_metadata_without_a_passages_table_is_refused(tmp_path: Path) -> None:
    folder = build(tmp_path / "wiki", unit_vectors(48, 384), "flat")
    (folder / METADATA_FILE).unlink()
    sqlite3.connect(str(folder / METADATA_FILE)).execute("CREATE TABLE other (x)").connection.close()
    with pytest.raises(WikipediaIndexError, match="no `passages` table"):
        WikipediaIndex.open(folder)


def test_no_index_is_silent_and_a_missing_one_is_one_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="knowledge.wikipedia"):
        assert load_wikipedia(None, top_k=5, nprobe=4) is None
        assert caplog.records == []
        assert load_wikipedia(tmp_path / "absent", top_k=5, nprobe=4) is None
    assert len(caplog.records) == 1 and "no Wikipedia index" in caplog.records[0].getMessage()


def test_l2_distances_read_as_cosine(tmp_path: Path) -> None:
    vectors = unit_vectors(48, 384)
    index = WikipediaIndex.open(build(tmp_path / "wiki", vectors, "flat-l2"), top_k=3)
    hits = index.search(vectors[7], 10)
    assert len(hits) == 3  # top_k caps what the pipeline asks for
    assert hits[0].id == "wiki_faiss_7" and hits[0].similarity == pytest.approx(1.0, abs=1e-5)
    assert hits[1].similarity == pytest.approx(
        float(vectors[7] @ vectors[int(hits[1].metadata["article_id"])])
    )
    index.close()


def test_ids_of_an_id_map_index_name_their_passages(tmp_path: Path) -> None:
    vectors = unit_vectors(3, 384)
    folder = tmp_path / "wiki"
    folder.mkdir()
    index = faiss.IndexIDMap(faiss.IndexFlatIP(384))
    index.add_with_ids(vectors, np.array([1001, 2002, 3003], dtype=np.int64))
    faiss.write_index(index, str(folder / INDEX_FILE))
    write_metadata(folder, [Passage(i, f"T{i}", f"text {i}") for i in (1001, 2002, 3003)])
    hit = WikipediaIndex.open(folder).search(vectors[1], 1)[0]
    assert (hit.id, hit.metadata["title"], hit.text) == ("wiki_faiss_2002", "T2002", "T2002\ntext 2002")


# --- search with MiniLM vectors -----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["flat", "ivfpq"])
def test_a_question_finds_its_article(tmp_path: Path, minilm: Any, vectors: np.ndarray, kind: str) -> None:
    index = WikipediaIndex.open(build(tmp_path / kind, vectors, kind), top_k=8, nprobe=4)
    hits = index.search(minilm.embed_query("which planet has rings?"), 8)
    assert {h.metadata["title"].split(" (")[0] for h in hits[:4]} == {"Saturn"}
    assert hits[0].metadata["url"] == "https://en.wikipedia.org/wiki/Saturn"
    assert all(-1.0 <= h.similarity <= 1.0 for h in hits)
    assert [h.similarity for h in hits] == sorted((h.similarity for h in hits), reverse=True)


@pytest.mark.slow
def test_the_index_answers_as_wiki_knowledge_in_the_memory_search(
    tmp_path: Path, minilm: Any, vectors: np.ndarray
) -> None:
    index = WikipediaIndex.open(build(tmp_path / "wiki", vectors, "ivfpq"), top_k=10, nprobe=4)
    service = MemoryService(InMemoryStore(minilm), committed_profiles(), sources={WIKI_KNOWLEDGE: index})
    service.open()
    meta: Metadata = {"turn_id": "t1", "session_id": "s1", "created_at": 1_700_000_000.0}
    service.write_turns([Record("conv_t1", "I made espresso this morning before my run.", meta)])
    ctx = QueryContext(
        query="how does a glacier form from snow and ice", now=1_700_000_100.0, intent="factual_recall"
    )
    found = asyncio.run(service.search(ctx, k=6))
    wiki = [m for m in found if m.collection == WIKI_KNOWLEDGE]
    assert wiki and wiki[0].metadata["title"].startswith("Glacier")
    assert service.stats()[WIKI_KNOWLEDGE] == 0  # the store's own collection stays empty: the index answers
