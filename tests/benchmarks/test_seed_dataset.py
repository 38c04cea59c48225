"""Data-quality checks of the seed benchmark: it loads, validates against the collection schemas, and covers
what the benchmark promises (all 13 collections, all 9 intents, every kind of case). No retrieval here."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from memory.collections import COLLECTION_NAMES
from tests.benchmarks.seed_schema import (
    INTENTS,
    KINDS,
    SeedCase,
    SeedError,
    SeedSet,
    load_seed,
    seed_record_id,
)

DAY = 86400.0
_STOP_WORDS = (
    "a an the and or but if of to in on at for with by from up down out over about into as is are was were "
    "be been am do does did have has had i me my we us our you your he him his she her it its they them "
    "their this that these those what whats when where who whos why how which there here than then so just "
    "again now still any some all not no can could would should will may might must get got im ive id dont "
    "didnt btw lol"
)
_STOP = frozenset(_STOP_WORDS.split())


@pytest.fixture(scope="module")
def seed() -> SeedSet:
    return load_seed()


def _content_words(text: str) -> list[str]:
    words = re.findall(r"[a-z0-9]+", text.lower().replace("'", "").replace("’", ""))
    return [word for word in words if word not in _STOP and len(word) > 1]


def _collections(seed: SeedSet, case: SeedCase) -> set[str]:
    return {seed.memory(key).collection for key in case.expected}


def test_sizes(seed: SeedSet) -> None:
    assert len(seed.memories) >= 90
    assert len(seed.cases) >= 90


def test_every_collection_has_at_least_three_memories(seed: SeedSet) -> None:
    counts = Counter(memory.collection for memory in seed.memories)
    assert {name: counts[name] for name in COLLECTION_NAMES if counts[name] < 3} == {}


def test_every_intent_has_at_least_eight_cases(seed: SeedSet) -> None:
    counts = Counter(case.intent for case in seed.cases)
    assert {intent: counts[intent] for intent in INTENTS if counts[intent] < 8} == {}


def test_every_kind_is_well_represented(seed: SeedSet) -> None:
    counts = Counter(case.kind for case in seed.cases)
    assert {kind: counts[kind] for kind in KINDS if counts[kind] < 8} == {}
    assert counts["hard_negative"] >= 20


def test_hard_negatives_name_a_distractor(seed: SeedSet) -> None:
    assert [case.id for case in seed.cases if case.kind == "hard_negative" and not case.must_not] == []


def test_single_facts_and_multi_items_have_fitting_sizes(seed: SeedSet) -> None:
    for case in seed.cases:
        assert case.k >= len(case.expected), case.id
        if case.kind == "single_fact":
            assert len(case.expected) <= 2 and case.k == 5, case.id
        if case.kind == "multi_item":
            assert 2 <= len(case.expected) <= 4 and case.k == 10, case.id
            assert len(_collections(seed, case)) >= 2, f"{case.id}: expected keys all in one collection"


def test_cross_collection_answers_live_outside_conversations(seed: SeedSet) -> None:
    for case in seed.cases:
        if case.kind == "cross_collection":
            assert "conversations" not in _collections(seed, case), case.id


def test_temporal_windows_separate_expected_from_must_not(seed: SeedSet) -> None:
    for case in seed.cases:
        if case.kind != "temporal_window":
            continue
        assert case.window is not None and case.must_not, f"{case.id}: needs a window and near-duplicates"
        start, end = case.window
        assert end <= case.now + 1, f"{case.id}: window ends after now"
        for key in case.expected:
            assert start <= seed.memory(key).created_at < end, f"{case.id}: {key} is outside the window"
        for key in case.must_not:
            inside = start <= seed.memory(key).created_at < end
            assert not inside, f"{case.id}: must_not {key} is in the window"


def test_nothing_is_remembered_before_it_happened(seed: SeedSet) -> None:
    assert max(memory.created_at for memory in seed.memories) <= seed.reference_now
    for case in seed.cases:
        for key in case.expected + case.acceptable + case.must_not:
            assert seed.memory(key).created_at <= case.now, f"{case.id}: {key} is after now"


def test_conversations_look_like_turns_spread_over_months(seed: SeedSet) -> None:
    turns = seed.in_collection("conversations")
    for memory in turns:
        assert memory.text.startswith("User: ") and "\nAssistant: " in memory.text, memory.key
        assert memory.metadata.get("session_id"), memory.key
    assert len({memory.metadata["turn_id"] for memory in turns}) == len(turns)
    times = [memory.created_at for memory in turns]
    assert 150 * DAY <= max(times) - min(times) <= 200 * DAY
    assert any(count > 1 for count in Counter(m.metadata["session_id"] for m in turns).values())


def test_superseded_facts_point_at_their_current_replacement(seed: SeedSet) -> None:
    facts = seed.in_collection("facts")
    by_record = {memory.record_id: memory for memory in facts}
    superseded = [memory for memory in facts if memory.metadata.get("status") == "superseded"]
    assert len(superseded) >= 5
    for memory in facts:
        assert memory.metadata.get("status") in ("current", "superseded"), memory.key
    for old in superseded:
        new = by_record[str(old.metadata["superseded_by"])]
        assert new.metadata["status"] == "current", old.key
        assert (new.metadata["subject"], new.metadata["predicate"]) == (
            old.metadata["subject"],
            old.metadata["predicate"],
        ), old.key
        assert new.created_at > old.created_at, old.key
    negatives = {key for case in seed.cases for key in case.must_not}
    assert {memory.key for memory in superseded} <= negatives, "every superseded fact is a tested distractor"


def test_metadata_is_in_stored_form(seed: SeedSet) -> None:
    for memory in seed.memories:
        assert isinstance(memory.metadata["created_at"], float), memory.key
        assert all(isinstance(value, str | int | float | bool) for value in memory.metadata.values())
        assert seed.key_of(memory.record_id) == memory.key
    summary = seed.memory("su_week_feb9")
    assert str(seed_record_id("conversations", "c_cutover_plan")) in str(summary.metadata["source_ids"])
    morning = seed.memory("c_morning_checkin").created_at  # 08:40 on the reference day (12:00)
    assert morning == pytest.approx(seed.reference_now - 3 * 3600 - 20 * 60)


def test_queries_paraphrase_rather_than_copy(seed: SeedSet) -> None:
    texts = {memory.key: " ".join(_content_words(memory.text)) for memory in seed.memories}
    for case in seed.cases:
        words = _content_words(case.query)
        grams = {" ".join(words[i : i + 4]) for i in range(len(words) - 3)}
        for key in case.expected:
            shared = [gram for gram in grams if gram in texts[key]]
            assert not shared, f"{case.id}: copies {shared} from {key}"
            coverage = len(set(words) & set(texts[key].split())) / max(1, len(set(words)))
            assert coverage <= 0.75 or len(set(words)) < 3, f"{case.id}: {coverage:.2f} of its words in {key}"


def test_queries_are_unique(seed: SeedSet) -> None:
    queries = Counter(case.query.casefold() for case in seed.cases)
    assert [query for query, count in queries.items() if count > 1] == []


_BAD = """
version: 1
reference_now: 2026-02-18T12:00:00Z
memories:
  - {key: a, collection: conversations, text: "User: hi\\nAssistant: hello",
     metadata: {created_at: 2026-01-01T10:00:00Z, session_id: s1, turn_id: t1}}
  - {key: a, collection: facts, text: x, metadata: {created_at: 2026-01-01T10:00:00Z}}
  - {key: b, collection: diaries, text: x, metadata: {created_at: 2026-01-01T10:00:00Z}}
  - {key: c, collection: facts, text: x, metadata: {created_at: 2026-01-01T10:00:00Z, subject: u,
     predicate: p, object: o, superseded_by: nowhere}}
  - {key: d, collection: threads, text: x, metadata: {status: open}}
cases:
  - {id: q1, intent: small_talk, kind: single_fact, query: hi, expected: [a], k: 0}
  - {id: q1, intent: general, kind: single_fact, query: hi, expected: [zzz], must_not: [a], k: 5}
  - {id: q2, intent: general, kind: single_fact, query: hi, expected: [a], must_not: [a], k: 5}
"""


def test_loader_reports_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(_BAD, encoding="utf-8")
    with pytest.raises(SeedError) as caught:
        load_seed(path)
    message = str(caught.value)
    for expected in (
        "memory a: duplicate key",
        "collection 'diaries'",
        "superseded_by: 'nowhere'",
        "memory d: threads: missing required metadata field(s) ['created_at']",
        "intent 'small_talk'",
        "k must be an integer >= 1",
        "case q1: duplicate id",
        "unknown memory key 'zzz'",
        "['a'] both in expected and must_not",
    ):
        assert expected in message
