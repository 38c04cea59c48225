"""Dedup only proposes, the user decides, approval hides (never deletes), undo restores, purge is explicit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memory.collections import COLLECTIONS
from memory.dedup import DedupScanner, DedupSettings, ScanRecord, similar_pairs
from memory.embeddings import HashingEmbedder
from memory.hidden import PurgeRefused
from memory.inmemory_store import InMemoryStore
from memory.review import (
    APPROVED,
    CONTRADICTION,
    DISMISSED,
    DUPLICATE,
    OPEN,
    UNDONE,
    ReviewError,
    ReviewItem,
    ReviewQueue,
    item_id,
)
from memory.vector_store import Record

NOW = 1_700_000_000.0
DIM = 16


@pytest.fixture
def queue(tmp_path: Path) -> Iterator[ReviewQueue]:
    q = ReviewQueue(tmp_path / "review.sqlite3", clock=lambda: NOW)
    yield q
    q.close()


def unit(*values: float) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


def near(base: np.ndarray, cosine: float, axis: int = -1) -> np.ndarray:
    """A unit vector at exactly `cosine` from `base` (rotated towards `axis`)."""
    other = np.zeros(DIM, dtype=np.float32)
    other[axis] = 1.0
    other -= (other @ base) * base
    other /= np.linalg.norm(other)
    return cosine * base + np.sqrt(1 - cosine**2) * other


def fact(
    rid: str, s: str, p: str, o: str, status: str = "current", vec: np.ndarray | None = None
) -> ScanRecord:
    meta = {"subject": s, "predicate": p, "object": o, "status": status, "created_at": NOW}
    return ScanRecord(rid, f"{s} {p} {o}", unit(1, 0, 0) if vec is None else vec, meta)


def summaries() -> list[ScanRecord]:
    a = unit(1, 2, 3)
    return [
        ScanRecord("sum_a", "we planned the trip", a, {}),
        ScanRecord("sum_b", "we planned the trip!", near(a, 0.95), {}),  # above 0.92
        ScanRecord("sum_c", "something close-ish", near(a, 0.90, axis=-2), {}),  # below 0.92
        ScanRecord("sum_d", "unrelated", unit(0, 0, 0, 1), {}),
    ]


def dup_pairs(items: list[ReviewItem]) -> set[tuple[str, ...]]:
    return {item.record_ids for item in items if item.kind == DUPLICATE}


# --- duplicates and contradictions ------------------------------------------------------------------


def test_duplicates_found_above_threshold_and_not_below(queue: ReviewQueue) -> None:
    items = DedupScanner(queue).scan({"summaries": summaries()})
    assert dup_pairs(items) == {("sum_a", "sum_b")}
    (item,) = items
    assert item.score == pytest.approx(0.95, abs=1e-3) and item.status == OPEN
    assert item.id == item_id(DUPLICATE, "summaries", ["sum_b", "sum_a"])  # order-free, deterministic
    assert "trip" not in item.explanation  # no copy of user text outside the store
    lower = DedupScanner(queue, DedupSettings(duplicate_threshold=0.89)).scan({"summaries": summaries()})
    assert dup_pairs(lower) == {("sum_a", "sum_b"), ("sum_a", "sum_c")}  # b·c = 0.95 * 0.90 < 0.89


def test_a_record_is_never_its_own_duplicate_and_repeated_ids_count_once(queue: ReviewQueue) -> None:
    records = [ScanRecord("x", "same", unit(1, 1), {}), ScanRecord("x", "same", unit(1, 1), {})]
    assert DedupScanner(queue).scan({"summaries": records}) == []


def test_contradictions_only_for_current_facts_with_same_subject_and_predicate(queue: ReviewQueue) -> None:
    facts = [
        fact("f1", "user", "lives_in", "Berlin", vec=unit(1, 0, 0)),
        fact("f2", "User", "lives_in", "Paris", vec=unit(0, 1, 0)),
        fact("f3", "user", "lives_in", "Rome", status="superseded", vec=unit(0, 0, 1)),
        fact("f4", "user", "works_at", "Acme", vec=unit(0, 0, 0, 1)),
        fact("f5", "jo", "lives_in", "Oslo", vec=unit(0, 0, 0, 0, 1)),
        fact("f6", "user", "lives_in", "berlin!", vec=unit(0, 0, 0, 0, 0, 1)),  # same object, other spelling
    ]
    items = DedupScanner(queue).scan({"facts": facts})
    contradictions = {item.record_ids for item in items if item.kind == CONTRADICTION}
    assert contradictions == {("f1", "f2"), ("f2", "f6")}
    only_functional = DedupSettings(contradiction_predicates=frozenset({"works_at"}))
    assert DedupScanner(queue, only_functional).scan({"facts": facts}) == []


def test_contradictions_are_looked_for_only_in_facts(queue: ReviewQueue) -> None:
    records = [
        fact("a", "user", "likes", "tea", vec=unit(1)),
        fact("b", "user", "likes", "coffee", vec=unit(0, 1)),
    ]
    assert DedupScanner(queue).scan({"summaries": records}) == []


def test_no_cross_collection_duplicates(queue: ReviewQueue) -> None:
    vector = unit(1, 2, 3)
    scan = {
        "facts": [fact("f1", "user", "likes", "tea", vec=vector)],
        "summaries": [ScanRecord("s1", "the user likes tea", vector, {})],
    }
    assert DedupScanner(queue).scan(scan) == []


# --- the queue: no duplicates, dismissals stick ---------------------------------------------------------


def test_rescan_proposes_nothing_new(queue: ReviewQueue) -> None:
    scanner = DedupScanner(queue)
    data = {"summaries": summaries(), "facts": [fact("f1", "u", "p", "x"), fact("f2", "u", "p", "y")]}
    first = scanner.scan(data)
    assert {item.kind for item in first} == {DUPLICATE, CONTRADICTION}
    assert queue.propose(first) == len(first) == 3  # f1/f2 also share a vector: duplicate + contradiction
    assert scanner.scan(data) == []
    assert queue.propose(first) == 0  # proposing the same items again is a no-op too
    assert len(queue.open_items()) == 3


def test_dismissed_pairs_never_come_back(queue: ReviewQueue) -> None:
    scanner = DedupScanner(queue)
    (item,) = scanner.scan({"summaries": summaries()})
    queue.propose([item])
    dismissed = queue.dismiss(item.id)
    assert dismissed.status == DISMISSED and queue.open_items() == []
    assert scanner.scan({"summaries": summaries()}) == []
    assert queue.propose([item]) == 0
    stored = queue.get(item.id)
    assert stored is not None and stored.status == DISMISSED
    with pytest.raises(ReviewError):
        queue.approve(item.id, keep="sum_a")  # decided: undo first


# --- approve hides, undo unhides, nothing leaves the store ----------------------------------------------


@pytest.fixture
def store() -> Iterator[InMemoryStore]:
    s = InMemoryStore(HashingEmbedder(64))
    s.ensure_collections(COLLECTIONS)
    text = "we planned the summer trip to Lisbon in May"
    records = [
        Record("sum_1", text, {"created_at": NOW}),
        Record("sum_2", text + ".", {"created_at": NOW + 1}),
        Record("sum_3", "the dentist appointment moved to Friday", {"created_at": NOW}),
    ]
    s.upsert("summaries", records)
    yield s
    s.close()


def test_approve_hides_without_deleting_and_undo_unhides(queue: ReviewQueue, store: InMemoryStore) -> None:
    scanner = DedupScanner(queue)
    (item,) = scanner.scan_store(store, ["summaries"])
    assert item.record_ids == ("sum_1", "sum_2")
    queue.propose([item])
    with pytest.raises(ReviewError):
        queue.approve(item.id, keep="sum_3")  # not one of the item's records
    approved = queue.approve(item.id, keep="sum_2")
    assert (approved.status, approved.keep, approved.hidden) == (APPROVED, "sum_2", ("sum_1",))
    assert queue.hidden.is_hidden("sum_1") and not queue.hidden.is_hidden("sum_2")
    assert queue.hidden.hidden_ids("summaries") == {"sum_1"}
    assert {r.id for r in store.get("summaries")} == {"sum_1", "sum_2", "sum_3"}  # nothing deleted
    assert scanner.scan_store(store, ["summaries"]) == []  # hidden records are not scanned again

    undone = queue.undo(item.id)
    assert undone.status == UNDONE and not queue.hidden.is_hidden("sum_1")
    assert queue.hidden.hidden_ids("summaries") == set()
    stored = queue.get(item.id)
    assert stored is not None and stored.status == UNDONE
    assert queue.approve(item.id, keep="sum_1").hidden == ("sum_2",)  # the user may decide again


def test_approval_never_hides_every_copy(queue: ReviewQueue) -> None:
    a = unit(1, 1, 1)
    records = [ScanRecord("a", "x", a, {}), ScanRecord("b", "x", a, {}), ScanRecord("c", "x", a, {})]
    items = {item.record_ids: item for item in DedupScanner(queue).scan({"summaries": records})}
    queue.propose(items.values())
    queue.approve(items[("a", "b")].id, keep="b")  # hides a
    queue.approve(items[("b", "c")].id, keep="c")  # hides b
    with pytest.raises(ReviewError, match="hidden"):
        queue.approve(items[("a", "c")].id, keep="a")  # would hide c, the last visible copy
    assert queue.hidden.hidden_ids("summaries") == {"a", "b"}


def test_hidden_records_by_hand(queue: ReviewQueue) -> None:
    assert queue.hidden.hide("facts", ["f1", "f1"]) == 1
    assert queue.hidden.is_hidden("f1", "facts") and not queue.hidden.is_hidden("f1", "summaries")
    assert queue.hidden.unhide(["f1"]) == 1 and not queue.hidden.is_hidden("f1")


# --- purge ------------------------------------------------------------------------------------------------


def test_purge_needs_confirm_and_only_touches_approved_hidden_records(
    queue: ReviewQueue, store: InMemoryStore
) -> None:
    (item,) = DedupScanner(queue).scan_store(store, ["summaries"])
    queue.propose([item])
    queue.hidden.hide("summaries", ["sum_3"])  # hidden by hand, not by an approved review item
    with pytest.raises(PurgeRefused):
        queue.hidden.purge(["sum_1", "sum_3"], store.delete)
    assert queue.hidden.purge(["sum_1", "sum_2"], store.delete, confirm=True).purged == ()  # still open

    queue.approve(item.id, keep="sum_2")
    with pytest.raises(PurgeRefused):  # a truthy non-bool is not a confirmation
        queue.hidden.purge(["sum_1"], store.delete, confirm="yes")  # type: ignore[arg-type]  # the point
    assert store.count("summaries") == 3

    result = queue.hidden.purge(["sum_1", "sum_2", "sum_3", "nope"], store.delete, confirm=True)
    assert result.purged == ("sum_1",) and result.skipped == ("sum_2", "sum_3", "nope")
    assert {r.id for r in store.get("summaries")} == {"sum_2", "sum_3"}
    assert queue.hidden.purge(["sum_1"], store.delete, confirm=True).purged == ()  # already gone
    with pytest.raises(ReviewError, match="purged"):
        queue.undo(item.id)


def test_an_undone_approval_cannot_be_purged(queue: ReviewQueue, store: InMemoryStore) -> None:
    (item,) = DedupScanner(queue).scan_store(store, ["summaries"])
    queue.propose([item])
    queue.approve(item.id, keep="sum_1")
    queue.undo(item.id)
    assert queue.hidden.purge(["sum_2"], store.delete, confirm=True).purged == ()
    assert store.count("summaries") == 3


# --- scale -------------------------------------------------------------------------------------------------


def test_similarity_is_computed_in_blocks() -> None:
    matrix = np.eye(10, dtype=np.float32)
    matrix[7] = matrix[2]
    blocks = list(similar_pairs(matrix, 0.92, block_cells=30))
    assert max(rows * cols for b in blocks for rows, cols in [b.shape]) <= 30
    found = [(int(i), int(j)) for b in blocks for i, j in zip(b.rows, b.cols, strict=True)]
    assert found == [(2, 7)]


def test_scan_of_5000_vectors_finds_the_copy_and_never_builds_the_full_matrix(queue: ReviewQueue) -> None:
    # The bounded block is what keeps the scan fast; its time is not asserted (a loaded machine stretches it).
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((5000, 384)).astype(np.float32)
    vectors[4999] = vectors[10] + 0.05 * rng.standard_normal(384).astype(np.float32)  # one planted copy
    records = [ScanRecord(f"r{i}", f"text {i}", vectors[i], {}) for i in range(5000)]
    items, stats = DedupScanner(queue).scan_with_stats({"reflections": records})
    assert dup_pairs(items) == {("r10", "r4999")}
    rows, cols = stats.largest_block
    assert stats.records == 5000 and 0 < rows * cols < 5000 * 5000 / 4
