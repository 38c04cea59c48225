"""Score fusion utilities."""

from __future__ import annotations

import pytest

from memory.fusion import (
    HybridWeights,
    group_prior,
    hybrid_scores,
    label_mentions,
    linear_fusion,
    minmax,
    neighbour_smoothing,
    ranks,
    rrf,
    top_k,
    zscore,
)


def test_minmax_scales_and_handles_constants() -> None:
    assert minmax([2.0, 4.0, 3.0]).tolist() == [0.0, 1.0, 0.5]
    assert minmax([5.0, 5.0]).tolist() == [0.0, 0.0]
    assert minmax([]).tolist() == []


def test_zscore() -> None:
    values = zscore([1.0, 2.0, 3.0])
    assert values.mean() == pytest.approx(0.0) and values.std() == pytest.approx(1.0)
    assert zscore([7.0, 7.0]).tolist() == [0.0, 0.0]


def test_ranks_and_top_k_keep_input_order_on_ties() -> None:
    assert ranks([0.1, 0.9, 0.9]).tolist() == [3.0, 1.0, 2.0]
    assert top_k([0.1, 0.9, 0.9, 0.5], 3) == [1, 2, 3]
    assert top_k([0.1], 0) == []


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = rrf([[3.0, 2.0, 1.0], [1.0, 2.0, 3.0]], k=1)
    assert fused.tolist() == pytest.approx([1 / 2 + 1 / 4, 2 / 3, 1 / 4 + 1 / 2])
    weighted = rrf([[1.0, 0.0], [0.0, 1.0]], k=0, weights=[2.0, 1.0])
    assert weighted.tolist() == pytest.approx([2.5, 2.0])
    assert rrf([]).tolist() == []


def test_linear_fusion_normalises_each_signal() -> None:
    fused = linear_fusion([[0.0, 10.0], [1.0, 0.0]], [0.75, 0.25])
    assert fused.tolist() == pytest.approx([0.25, 0.75])
    assert linear_fusion([[0.0, 1.0], [1.0, 0.0]]).tolist() == pytest.approx([0.5, 0.5])
    assert linear_fusion([[2.0, 4.0]], [1.0], normalise="none").tolist() == [2.0, 4.0]


def test_neighbour_smoothing_stays_inside_a_group() -> None:
    scores = [1.0, 0.0, 0.0, 0.5]
    groups = ["s1", "s1", "s2", "s2"]
    positions = [0, 1, 0, 1]
    smoothed = neighbour_smoothing(scores, groups, positions, 0.5)
    assert smoothed.tolist() == pytest.approx([1.0, 0.5, 0.25, 0.5])
    assert neighbour_smoothing(scores, groups, positions, 1.0, mode="prev").tolist() == [1.0, 1.0, 0.0, 0.5]
    assert neighbour_smoothing(scores, groups, positions, 0.0).tolist() == scores


def test_neighbour_smoothing_needs_adjacent_positions() -> None:
    smoothed = neighbour_smoothing([1.0, 0.0], ["s", "s"], [0, 2], 1.0)
    assert smoothed.tolist() == [1.0, 0.0]


def test_group_prior_lifts_members_of_strong_groups() -> None:
    scores = [0.9, 0.8, 0.1, 0.5]
    lifted = group_prior(scores, ["a", "a", "b", "b"], 0.2, top=2)
    assert lifted.tolist() == pytest.approx([1.1, 1.0, 0.1, 0.5])
    assert group_prior(scores, ["a", "a", "b", "b"], 0.0).tolist() == scores


def test_label_mentions_match_whole_words_only() -> None:
    mask = label_mentions("What did Jon tell Gina?", ["Jon", "Jonathan", "Gina", "Maria"])
    assert mask.tolist() == [1.0, 0.0, 1.0, 0.0]
    assert label_mentions("what did jon say", ["Jon", ""]).tolist() == [1.0, 0.0]


def test_hybrid_scores_combines_relevance_and_priors() -> None:
    dense = [[0.2, 0.9, 0.5]]
    lexical = [[0.0, 1.0, 3.0]]
    groups, positions = ["s1", "s1", "s2"], [0, 1, 0]
    plain = hybrid_scores(
        dense, lexical, groups=groups, positions=positions, weights=HybridWeights(group=0.0)
    )
    assert plain.tolist() == pytest.approx([0.0, 0.5 + 0.5 / 3, 0.5 * 3 / 7 + 0.5])
    boosted = hybrid_scores(
        dense,
        lexical,
        groups=groups,
        positions=positions,
        label_match=[1.0, 0.0, 0.0],
        time_fit=[0.0, 0.0, 1.0],
        time_mention=[1.0, 0.0, 0.0],
        weights=HybridWeights(label=0.5, time_window=0.25, time_mention=0.1, group=0.0),
    )
    assert boosted.tolist() == pytest.approx([0.6, plain[1], plain[2] + 0.25])


def test_hybrid_scores_without_signals_is_zero() -> None:
    assert hybrid_scores([], [], groups=["a"], positions=[0]).tolist() == [0.0]
