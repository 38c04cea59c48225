"""The seed benchmark through the real memory pipeline: real MiniLM embeddings, real embedded Chroma.

Each case runs the normal search path (the case's intent, the case's `now`) and is scored on recall@k of its
expected memories, reciprocal rank of the first relevant one, and memories that must not be retrieved.
Per-case misses are allowed; the aggregate floors are what the pipeline must keep (measured figures are in
the README).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from memory.candidates import QueryContext
from memory.chroma_store import ChromaStore
from memory.embeddings import MiniLMEmbedder
from memory.service import MemoryService
from memory.vector_store import Record
from tests.benchmarks.seed_schema import SeedCase, SeedSet, load_seed
from tests.unit.memory.profile_helpers import committed_profiles

pytestmark = [pytest.mark.benchmark, pytest.mark.slow]

INTENTS = (
    "factual_recall",
    "temporal_recall",
    "emotional_support",
    "casual_social",
    "technical_help",
    "creative_exploration",
    "meta_conversational",
    "project_work",
    "general",
)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MemoryService, SeedSet]]:
    seed = load_seed()
    store = ChromaStore.embedded(tmp_path_factory.mktemp("seed") / "chroma", MiniLMEmbedder(threads=1))
    service = MemoryService(store, committed_profiles())
    service.open()
    by_collection: dict[str, list[Record]] = {}
    for memory in seed.memories:
        by_collection.setdefault(memory.collection, []).append(
            Record(memory.record_id, memory.text, dict(memory.metadata))
        )
    for collection, records in by_collection.items():
        service.add(collection, records)
    yield service, seed
    service.close()


def run_case(service: MemoryService, seed: SeedSet, case: SeedCase) -> dict[str, Any]:
    ctx = QueryContext(query=case.query, now=case.now, intent=case.intent)
    found = asyncio.run(service.search(ctx, k=case.k))
    keys = [seed.key_of(item.id) for item in found]
    recall = sum(key in keys for key in case.expected) / len(case.expected)
    relevant = case.relevant
    rank = next((i for i, key in enumerate(keys, 1) if key in relevant), None)
    violations = [key for key in case.must_not if key in keys]
    return {"recall": recall, "rr": 1 / rank if rank else 0.0, "violations": violations, "keys": keys}


@pytest.fixture(scope="module")
def results(seeded: tuple[MemoryService, SeedSet]) -> dict[str, dict[str, Any]]:
    service, seed = seeded
    return {case.id: {"case": case, **run_case(service, seed, case)} for case in seed.cases}


def test_every_collection_is_stored_and_counted(seeded: tuple[MemoryService, SeedSet]) -> None:
    service, seed = seeded
    stats = service.stats()
    for memory_collection in {m.collection for m in seed.memories}:
        assert stats[memory_collection] == len(seed.in_collection(memory_collection))


def test_overall_recall_and_mrr(results: dict[str, dict[str, Any]]) -> None:
    recall = sum(r["recall"] for r in results.values()) / len(results)
    mrr = sum(r["rr"] for r in results.values()) / len(results)
    print(f"\nseed benchmark: {len(results)} cases, recall@k {recall:.3f}, MRR {mrr:.3f}")
    assert recall >= RECALL_FLOOR
    assert mrr >= MRR_FLOOR


@pytest.mark.parametrize("intent", INTENTS)
def test_each_intent_retrieves_its_memories(results: dict[str, dict[str, Any]], intent: str) -> None:
    rows = [r for r in results.values() if r["case"].intent == intent]
    assert len(rows) >= 8
    recall = sum(r["recall"] for r in rows) / len(rows)
    assert recall >= INTENT_RECALL_FLOOR, f"{intent}: recall@k {recall:.3f}"


def test_must_not_retrieve(results: dict[str, dict[str, Any]]) -> None:
    guarded = [r for r in results.values() if r["case"].must_not]
    violated = [r["case"].id for r in guarded if r["violations"]]
    share = len(violated) / len(guarded)
    print(f"\nmust-not cases: {len(guarded)}, violated: {len(violated)} ({share:.2f}) {violated}")
    assert share <= MUST_NOT_VIOLATION_CEILING


def test_superseded_facts_rank_below_their_replacements(results: dict[str, dict[str, Any]]) -> None:
    hard = [r for r in results.values() if r["case"].kind == "hard_negative"]
    clean = sum(1 for r in hard if not r["violations"]) / len(hard)
    assert clean >= HARD_NEGATIVE_FLOOR


# Regression floors, a little under what was measured on 2026-12-02 (recall@k .592, MRR .600, weakest
# intent project_work .308, must-not violated in 12/43 cases, hard negatives clean 26/30). They catch a
# pipeline that gets worse; raising the measured figures is tracked in the README.
RECALL_FLOOR = 0.55
MRR_FLOOR = 0.55
INTENT_RECALL_FLOOR = 0.25
MUST_NOT_VIOLATION_CEILING = 0.33
HARD_NEGATIVE_FLOOR = 0.8
