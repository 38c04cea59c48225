"""Gating: batch evidence fusion, threshold with a minimum kept, and the pluggable reranking stage."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from core.config_memory import RerankerConfig
from memory.candidates import Candidate, GatedCandidate, QueryContext
from memory.gating import CrossEncoderReranker, NoReranker, fuse, gate, reranker_from_config
from memory.profiles import IntentProfile
from tests.unit.memory.profile_helpers import committed_profiles

CTX = QueryContext(query="where does my sister live", now=1_700_000_000.0)


def cand(
    cid: str, dense: float, lexical: float = 0.0, context: float = 0.0, collection: str = "conversations"
) -> Candidate:
    return Candidate(cid, collection, f"text of {cid}", {"created_at": 1.0}, dense, lexical, context)


def profile(threshold: float = 0.2, min_keep: int = 2, dense_weight: float = 0.5) -> IntentProfile:
    return dataclasses.replace(
        committed_profiles().get("general"),
        name="test",
        limits={"conversations": 10},
        gate_threshold=threshold,
        min_keep=min_keep,
        dense_weight=dense_weight,
    )


def by_id(gated: Sequence[GatedCandidate]) -> dict[str, GatedCandidate]:
    return {g.candidate.id: g for g in gated}


def test_fusion_is_min_max_over_the_batch_and_averages_the_lexical_views() -> None:
    fused = by_id(
        fuse([cand("a", 0.2, 0.0, 0.0), cand("b", 0.6, 4.0, 2.0), cand("c", 0.4, 2.0, 6.0)], dense_weight=0.5)
    )
    assert fused["a"].evidence["dense"] == 0.0 and fused["b"].evidence["dense"] == 1.0
    assert fused["c"].evidence["dense"] == pytest.approx(0.5)
    # lexical of c: mean(minmax bare 2/4, minmax context 6/6) = 0.75
    assert fused["c"].evidence["lexical"] == pytest.approx(0.75)
    assert fused["c"].relevance == pytest.approx(0.5 * 0.5 + 0.5 * 0.75)
    assert fused["a"].relevance == 0.0
    assert fused["b"].evidence["dense_raw"] == 0.6 and fused["b"].evidence["lexical_context_raw"] == 2.0


def test_dense_weight_comes_from_the_profile() -> None:
    items = [cand("a", 0.9, 0.0), cand("b", 0.1, 5.0)]
    dense_heavy = by_id(gate(items, CTX, profile(dense_weight=0.8)))
    assert dense_heavy["a"].relevance == pytest.approx(0.8) and dense_heavy["b"].relevance == pytest.approx(
        0.2
    )


def test_collections_without_a_context_view_use_their_bare_lexical_score() -> None:
    fused = by_id(fuse([cand("t", 0.5, 2.0, 4.0), cand("f", 0.5, 4.0, 0.0, collection="facts")]))
    assert fused["f"].evidence["lexical"] == pytest.approx(1.0)  # not halved by a missing context view
    assert fused["t"].evidence["lexical"] == pytest.approx(0.5)  # mean(0, 1): bare 2 is the minimum


def test_a_lone_candidate_keeps_its_absolute_evidence() -> None:
    (only,) = fuse([cand("a", 0.7, 3.0, 3.0)])
    assert only.evidence["dense"] == pytest.approx(0.7) and only.evidence["lexical"] == 1.0
    assert only.relevance == pytest.approx(0.85)


def test_duplicates_are_merged_keeping_the_strongest_evidence() -> None:
    fused = fuse([cand("a", 0.3, 0.0), cand("a", 0.3, 2.0), cand("b", 0.1)])
    assert [g.candidate.id for g in fused] == ["a", "b"]
    assert fused[0].evidence["lexical_raw"] == 2.0


def test_threshold_drops_weak_candidates_but_the_best_min_keep_always_pass() -> None:
    items = [cand(str(i), dense=i / 10) for i in range(11)]  # relevance 0.5 * i / 10
    kept = gate(items, CTX, profile(threshold=0.3, min_keep=2))
    assert [g.candidate.id for g in kept] == ["10", "9", "8", "7", "6"]  # 0.5 * 0.6 = 0.3 passes
    strict = gate(items, CTX, profile(threshold=0.99, min_keep=3))
    assert [g.candidate.id for g in strict] == ["10", "9", "8"]  # none passes: the best three stay
    assert gate([], CTX, profile()) == []


def test_gate_returns_best_first() -> None:
    kept = gate([cand("low", 0.1), cand("high", 0.9, 3.0), cand("mid", 0.5, 1.0)], CTX, profile(min_keep=3))
    assert [g.candidate.id for g in kept] == ["high", "mid", "low"]


class Reverser:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def rerank(self, query: str, gated: Sequence[GatedCandidate]) -> list[GatedCandidate]:
        self.seen = [g.candidate.id for g in gated]
        return list(reversed(gated))


def test_the_reranker_runs_after_the_threshold_and_its_order_is_kept() -> None:
    reverser = Reverser()
    items = [cand(str(i), dense=i / 10) for i in range(11)]
    kept = gate(items, CTX, profile(threshold=0.4, min_keep=1), reranker=reverser)
    assert reverser.seen == ["10", "9", "8"]  # only what passed the gate, best first
    assert [g.candidate.id for g in kept] == ["8", "9", "10"]
    assert [g.candidate.id for g in NoReranker().rerank("q", kept)] == ["8", "9", "10"]


class FakeCrossEncoder:
    """Scores a pair by whether the text mentions 'sister'."""

    def __init__(self) -> None:
        self.calls = 0

    def predict(self, pairs: list[tuple[str, str]]) -> list[float]:
        self.calls += 1
        return [5.0 if "sister" in text else -5.0 for _, text in pairs]


def gated(cid: str, relevance: float, text: str) -> GatedCandidate:
    return GatedCandidate(Candidate(cid, "facts", text, {}, 0.5), relevance, {"dense": relevance})


def test_cross_encoder_is_loaded_lazily_and_mixes_into_relevance() -> None:
    model = FakeCrossEncoder()
    loads: list[str] = []

    def loader(path: str) -> FakeCrossEncoder:
        loads.append(path)
        return model

    reranker = CrossEncoderReranker("/models/ce", weight=0.4, top_n=2, loader=loader)
    assert loads == []  # nothing is loaded before it is needed
    items = [gated("a", 0.9, "the weather"), gated("b", 0.7, "my sister lives in Lyon"), gated("c", 0.5, "x")]
    out = reranker.rerank("where does my sister live", items)
    assert loads == ["/models/ce"] and model.calls == 1
    assert [g.candidate.id for g in out] == ["b", "a", "c"]
    ranked = by_id(out)
    assert ranked["b"].relevance == pytest.approx(0.6 * 0.7 + 0.4 * 1.0)
    assert ranked["a"].relevance == pytest.approx(0.6 * 0.9)
    assert ranked["c"].relevance == pytest.approx(0.6 * 0.5)  # beyond top_n: counts as a CE score of 0
    assert ranked["b"].evidence["cross_encoder"] == 5.0 and ranked["b"].evidence["pre_rerank"] == 0.7
    reranker.rerank("again", items)
    assert loads == ["/models/ce"]  # loaded once


def test_cross_encoder_accepts_a_model_object() -> None:
    reranker = CrossEncoderReranker("unused", model=FakeCrossEncoder(), weight=1.0)
    (only,) = reranker.rerank("q", [gated("a", 0.2, "my sister")])
    assert only.relevance == pytest.approx(1.0 / (1.0 + 2.718281828459045**-5.0))  # sigmoid when alone
    assert reranker.rerank("q", []) == []
    with pytest.raises(ValueError, match="weight"):
        CrossEncoderReranker("x", weight=1.5)


def test_reranker_from_config() -> None:
    assert isinstance(reranker_from_config(RerankerConfig()), NoReranker)
    configured = reranker_from_config(RerankerConfig(model="/models/ce", weight=0.3, top_n=5))
    assert isinstance(configured, CrossEncoderReranker)
    assert configured.model_path == "/models/ce" and configured.weight == 0.3 and configured.top_n == 5


def test_gating_does_not_touch_its_inputs() -> None:
    items = [cand("a", 0.2), cand("b", 0.8)]
    prof = profile()
    before = dataclasses.replace(prof)
    gate(items, CTX, prof)
    assert prof == before and items == [cand("a", 0.2), cand("b", 0.8)]
