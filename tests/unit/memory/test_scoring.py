"""Composite scoring: factors, decay, bonuses, penalties, and per-request state."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import pytest

from memory.candidates import Candidate, GatedCandidate, QueryContext, ScoredMemory
from memory.scoring import BONUSES, FACTORS, PENALTIES, score, staleness_penalty
from tests.unit.memory.profile_helpers import committed_profiles

DAY = 86400.0
NOW = datetime(2024, 6, 14, 12, 0).timestamp()  # a Friday
PROFILES = committed_profiles()
GENERAL = PROFILES.get("general")


def item(
    cid: str,
    relevance: float = 0.5,
    text: str = "",
    collection: str = "conversations",
    age_days: float = 1.0,
    **metadata: Any,
) -> GatedCandidate:
    meta: dict[str, Any] = {"created_at": NOW - age_days * DAY, **metadata}
    candidate = Candidate(cid, collection, text or f"memory {cid}", meta, relevance)
    return GatedCandidate(candidate, relevance, {"dense": relevance})


def ctx(query: str = "tell me about it all", **kwargs: Any) -> QueryContext:
    return QueryContext(query=query, now=NOW, **kwargs)


def ranked(results: list[ScoredMemory]) -> list[str]:
    return [r.id for r in results]


def factors(results: list[ScoredMemory]) -> Mapping[str, Mapping[str, float]]:
    return {r.id: r.factors for r in results}


def test_every_factor_is_reported_and_they_add_up_to_the_score() -> None:
    results = score([item("a", 0.9), item("b", 0.2, age_days=40, staleness_ratio=0.9)], ctx(), GENERAL)
    assert ranked(results) == ["a", "b"]
    for result in results:
        assert set(result.factors) == {*FACTORS, *BONUSES, *PENALTIES}
        assert result.score == pytest.approx(sum(result.factors.values()))
    a = factors(results)["a"]
    assert a["relevance"] == pytest.approx(GENERAL.weights.relevance * 0.9)
    assert a["truth"] == pytest.approx(GENERAL.weights.truth * 0.5)  # default truth
    assert a["importance"] == pytest.approx(GENERAL.weights.importance * 0.3)  # default importance
    assert factors(results)["b"]["staleness"] < 0
    assert score([], ctx(), GENERAL) == []


def test_recency_halves_at_the_half_life() -> None:
    half_life = GENERAL.half_life_days
    results = factors(score([item("new", age_days=0), item("old", age_days=half_life)], ctx(), GENERAL))
    assert results["old"]["recency"] == pytest.approx(results["new"]["recency"] / 2)
    assert results["new"]["recency"] == pytest.approx(GENERAL.weights.recency)


def test_recency_counts_active_days_when_they_are_known() -> None:
    # the user was away for two months: only one active day since the old memory was written
    active = (NOW - 70 * DAY, NOW)
    results = factors(score([item("old", age_days=70)], ctx(active_days=active), GENERAL))
    assert results["old"]["recency"] == pytest.approx(
        GENERAL.weights.recency * 0.5 ** (1 / GENERAL.half_life_days)
    )
    temporal = PROFILES.get("temporal_recall")  # keeps calendar days
    results = factors(score([item("old", age_days=70)], ctx(active_days=active), temporal))
    assert results["old"]["recency"] == pytest.approx(
        temporal.weights.recency * 0.5 ** (70 / temporal.half_life_days)
    )


def test_superseded_facts_rank_below_current_ones_but_stay() -> None:
    gated = [
        item("old", 0.8, collection="facts", status="superseded"),
        item("replaced", 0.8, collection="facts", superseded_by="fact_2"),
        item("current", 0.8, collection="facts", status="current"),
    ]
    results = score(gated, ctx(), PROFILES.get("factual_recall"))
    assert ranked(results)[0] == "current" and len(results) == 3
    assert factors(results)["old"]["superseded"] < 0 and factors(results)["replaced"]["superseded"] < 0


def test_staleness_penalty_is_steep_above_0_8() -> None:
    low_step = staleness_penalty(0.8, 0.15, 0.25) - staleness_penalty(0.7, 0.15, 0.25)
    high_step = staleness_penalty(0.9, 0.15, 0.25) - staleness_penalty(0.8, 0.15, 0.25)
    assert high_step > 5 * low_step
    assert staleness_penalty(0.0, 0.15, 0.25) == 0.0
    assert staleness_penalty(1.0, 0.15, 0.25) == pytest.approx(0.4)
    results = factors(score([item("s", staleness_ratio=0.95)], ctx(), GENERAL))
    assert results["s"]["staleness"] == pytest.approx(-staleness_penalty(0.95, 0.15, 0.25))


def test_anchor_bonus_when_the_query_names_the_speaker() -> None:
    gated = [item("mel", 0.5, speaker="Melanie"), item("car", 0.5, speaker="Caroline")]
    results = score(gated, ctx("What did Caroline paint?", speakers=("Caroline", "Melanie")), GENERAL)
    assert ranked(results)[0] == "car"
    assert factors(results)["car"]["anchor"] == pytest.approx(GENERAL.bonuses.anchor)
    assert factors(results)["mel"]["anchor"] == 0.0


def test_time_window_favours_memories_from_that_time() -> None:
    gated = [item("months", 0.5, age_days=90), item("last_week", 0.5, age_days=7)]
    results = score(gated, ctx("what did I cook last week"), PROFILES.get("temporal_recall"))
    assert ranked(results)[0] == "last_week"
    assert factors(results)["last_week"]["time_window"] > factors(results)["months"]["time_window"]
    explicit = score(gated, ctx("what did I cook in March 2024"), PROFILES.get("factual_recall"))
    assert ranked(explicit)[0] == "months"  # 90 days before mid-June


def test_when_questions_favour_records_that_mention_a_time() -> None:
    gated = [
        item("plain", 0.5, text="I went to the race"),
        item("dated", 0.5, text="I ran the race last Saturday"),
    ]
    results = score(gated, ctx("When did I run the race?"), GENERAL)
    assert ranked(results)[0] == "dated" and factors(results)["dated"]["time_mention"] > 0
    other = factors(score(gated, ctx("Did I run the race?"), GENERAL))
    assert other["dated"]["time_mention"] == 0.0


def test_session_prior_lifts_turns_of_strong_sessions() -> None:
    gated = [
        item("s1a", 0.9, session_id="s1"),
        item("s1b", 0.8, session_id="s1"),
        item("s1c", 0.3, session_id="s1"),
        item("s2a", 0.35, session_id="s2"),
        item("s2b", 0.1, session_id="s2"),
    ]
    results = factors(score(gated, ctx(), GENERAL))
    assert results["s1c"]["session"] == pytest.approx(GENERAL.bonuses.session)
    assert results["s2a"]["session"] == 0.0
    assert sorted(results, key=lambda k: -sum(results[k].values())).index("s1c") < 3


def test_graph_bonus_comes_from_the_context() -> None:
    results = factors(score([item("a"), item("b")], ctx(graph_bonus={"b": 1.0}), GENERAL))
    assert results["b"]["graph"] == pytest.approx(GENERAL.bonuses.graph) and results["a"]["graph"] == 0.0


def test_meta_bonus_only_for_meta_intents_on_summaries_and_reflections() -> None:
    gated = [
        item("turn", 0.5),
        item("sum", 0.5, collection="summaries"),
        item("refl", 0.5, collection="reflections"),
    ]
    meta = factors(score(gated, ctx("what did we talk about"), PROFILES.get("meta_conversational")))
    assert meta["sum"]["meta"] > 0 and meta["refl"]["meta"] > 0 and meta["turn"]["meta"] == 0
    assert factors(score(gated, ctx(), GENERAL))["sum"]["meta"] == 0.0


def test_closed_threads_rank_down_for_intents_that_want_open_items() -> None:
    gated = [
        item("done", 0.6, collection="threads", status="resolved"),
        item("open", 0.5, collection="threads", status="open"),
    ]
    project = score(gated, ctx(), PROFILES.get("project_work"))
    assert ranked(project) == ["open", "done"]  # ranked down, not removed
    factual = score(gated, ctx(), PROFILES.get("factual_recall"))
    assert ranked(factual) == ["done", "open"] and factors(factual)["done"]["closed_item"] == 0.0


def test_very_long_texts_pay_a_size_penalty() -> None:
    limit = GENERAL.penalties.size_chars
    gated = [item("long", 0.5, text="word " * limit), item("short", 0.5, text="word")]
    results = factors(score(gated, ctx(), GENERAL))
    assert results["long"]["size"] == pytest.approx(-GENERAL.penalties.size)  # 5x the limit: full penalty
    assert results["short"]["size"] == 0.0


def test_continuity_with_the_last_exchange_and_the_session() -> None:
    last = "User: how do I keep my sourdough starter alive?\nAssistant: feed it flour and water daily"
    gated = [
        item("bread", 0.5, text="my sourdough starter needs flour", session_id="old"),
        item("cars", 0.5, text="the car needs new tyres", session_id="old"),
        item("here", 0.5, text="the car needs new tyres", session_id="now"),
    ]
    results = factors(score(gated, ctx(last_exchange=last, session_id="now"), GENERAL))
    assert results["bread"]["continuity"] > results["here"]["continuity"] > results["cars"]["continuity"] == 0
    assert results["here"]["continuity"] == pytest.approx(0.5 * GENERAL.weights.continuity)


def test_deictic_query_penalises_records_unrelated_to_the_last_exchange() -> None:
    last = "User: how do I keep my sourdough starter alive?\nAssistant: feed it flour and water daily"
    gated = [
        item("bread", 0.5, text="sourdough starter feeding schedule"),
        item("cars", 0.6, text="car tyres"),
    ]
    results = score(gated, ctx("what about that?", last_exchange=last), GENERAL)
    assert ranked(results) == ["bread", "cars"]
    assert factors(results)["cars"]["deictic_drift"] == pytest.approx(-GENERAL.penalties.deictic_drift)
    plain = factors(score(gated, ctx("which tyres fit my car?", last_exchange=last), GENERAL))
    assert plain["cars"]["deictic_drift"] == 0.0


def test_topic_match_by_label_or_text() -> None:
    gated = [
        item("tagged", 0.5, text="kneading tips", tags='["topic:cooking"]'),
        item("mention", 0.5, text="a cooking class"),
        item("none", 0.5, text="tax forms"),
    ]
    results = factors(score(gated, ctx(topics=("cooking",)), GENERAL))
    assert results["tagged"]["topic_match"] == pytest.approx(GENERAL.weights.topic_match)
    assert 0 < results["mention"]["topic_match"] < results["tagged"]["topic_match"]
    assert results["none"]["topic_match"] == 0.0


def test_metadata_values_shape_truth_and_importance() -> None:
    gated = [item("sure", 0.5, truth=0.95, importance=0.9), item("doubt", 0.5, truth=0.1, importance="bad")]
    results = score(gated, ctx(), GENERAL)
    assert ranked(results) == ["sure", "doubt"]
    assert factors(results)["doubt"]["importance"] == pytest.approx(GENERAL.weights.importance * 0.3)


def test_scoring_keeps_state_per_request() -> None:
    profile = PROFILES.get("general")
    snapshot = dataclasses.replace(profile)
    context = ctx("What did Caroline say last week?", speakers=("Caroline",), graph_bonus={"a": 0.5})
    first = score([item("a", 0.7, speaker="Caroline"), item("b", 0.4)], context, profile)
    score([item("c", 0.9)], ctx("unrelated"), PROFILES.get("temporal_recall"))
    again = score([item("a", 0.7, speaker="Caroline"), item("b", 0.4)], context, profile)
    assert profile == snapshot and dict(context.graph_bonus) == {"a": 0.5}
    assert [(r.id, r.score) for r in first] == [(r.id, r.score) for r in again]
