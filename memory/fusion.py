"""Score fusion for hybrid retrieval: pure functions over aligned score arrays (one entry per candidate item).

The pipeline these pieces make (see `hybrid_scores`): each relevance signal (dense cosine over the bare and
the contextual text, BM25 over both) is min-max normalised over the candidates; the dense and the lexical
signals are averaged within their family and mixed linearly; generic priors are added (the query names the
item's speaker, the item's time fits the query's time window, a "when" question meets an item that mentions a
time); optionally a turn borrows part of its best neighbour's score; finally items of strong groups (sessions)
are lifted by the group's top scores. RRF is here too, as the rank-only alternative it was measured against.

numpy is imported inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np


def _array(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    import numpy as np

    return np.asarray(scores, dtype=np.float64)


def minmax(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """Scale to [0, 1]; a constant (or empty) array becomes all zeros, so it adds nothing to a fusion."""
    import numpy as np

    values = _array(scores)
    if values.size == 0:
        return values
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.zeros_like(values)


def zscore(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """Standardise to mean 0, standard deviation 1 (all zeros when constant)."""
    import numpy as np

    values = _array(scores)
    std = float(values.std()) if values.size else 0.0
    return (values - values.mean()) / std if std > 0 else np.zeros_like(values)


def ranks(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """1-based rank of every item, best first; ties keep input order."""
    import numpy as np

    values = _array(scores)
    out = np.empty(values.size, dtype=np.float64)
    out[np.argsort(-values, kind="stable")] = np.arange(1, values.size + 1)
    return out


def top_k(scores: Sequence[float] | np.ndarray, k: int) -> list[int]:
    """Indices of the k best items, best first; ties keep input order."""
    import numpy as np

    return [int(i) for i in np.argsort(-_array(scores), kind="stable")[: max(k, 0)]]


def rrf(
    score_lists: Sequence[Sequence[float] | np.ndarray],
    *,
    k: float = 60.0,
    weights: Sequence[float] | None = None,
) -> np.ndarray:
    """Reciprocal rank fusion: sum of weight / (k + rank) over the signals."""
    import numpy as np

    weights = weights or [1.0] * len(score_lists)
    if not score_lists:
        return np.zeros(0)
    return sum(
        (w / (k + ranks(s)) for w, s in zip(weights, score_lists, strict=True)), np.zeros(len(score_lists[0]))
    )


def linear_fusion(
    score_lists: Sequence[Sequence[float] | np.ndarray],
    weights: Sequence[float] | None = None,
    *,
    normalise: Literal["minmax", "zscore", "none"] = "minmax",
) -> np.ndarray:
    """Weighted sum of normalised signals (equal weights by default; weights are used as given)."""
    import numpy as np

    if not score_lists:
        return np.zeros(0)
    weights = weights or [1.0 / len(score_lists)] * len(score_lists)
    norm = {"minmax": minmax, "zscore": zscore, "none": _array}[normalise]
    out = np.zeros(len(score_lists[0]))
    for weight, scores in zip(weights, score_lists, strict=True):
        out += weight * norm(scores)
    return out


def neighbour_smoothing(
    scores: Sequence[float] | np.ndarray,
    groups: Sequence[Hashable],
    positions: Sequence[int],
    weight: float,
    *,
    mode: Literal["max", "mean", "prev", "next"] = "max",
) -> np.ndarray:
    """Add `weight` x the score of an item's adjacent items (same group, position +-1) among the given ones.

    Answers often span a question/answer pair of turns; a neighbour that is not among the items counts 0.
    """
    values = _array(scores)
    if weight == 0 or values.size == 0:
        return values
    where = {(g, p): i for i, (g, p) in enumerate(zip(groups, positions, strict=True))}
    bonus = values * 0.0
    for i, (group, pos) in enumerate(zip(groups, positions, strict=True)):
        prev_i, next_i = where.get((group, pos - 1)), where.get((group, pos + 1))
        prev_s = values[prev_i] if prev_i is not None else 0.0
        next_s = values[next_i] if next_i is not None else 0.0
        bonus[i] = {
            "max": max(prev_s, next_s),
            "mean": (prev_s + next_s) / 2,
            "prev": prev_s,
            "next": next_s,
        }[mode]
    return values + weight * bonus


def group_prior(
    scores: Sequence[float] | np.ndarray, groups: Sequence[Hashable], weight: float, *, top: int = 3
) -> np.ndarray:
    """Lift items of strong groups: add `weight` x the min-max-normalised mean of the group's `top` scores."""
    import numpy as np

    values = _array(scores)
    if weight == 0 or values.size == 0:
        return values
    members: dict[Hashable, list[float]] = {}
    for group, score in zip(groups, values, strict=True):
        members.setdefault(group, []).append(float(score))
    strength = {g: float(np.mean(sorted(v, reverse=True)[:top])) for g, v in members.items()}
    return values + weight * minmax([strength[g] for g in groups])


def label_mentions(query: str, labels: Sequence[str]) -> np.ndarray:
    """1.0 where the item's label (a speaker, an author) is named in the query as a whole word, else 0.0."""
    import numpy as np

    lowered = query.lower()
    found: dict[str, bool] = {}
    for label in set(labels):
        name = label.strip().lower()
        found[label] = bool(name) and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", lowered) is not None
    return np.array([1.0 if found[label] else 0.0 for label in labels])


@dataclass(frozen=True)
class HybridWeights:
    """Weights of `hybrid_scores`: round values measured on LoCoMo dev (docs/retrieval_findings.md)."""

    dense: float = 0.5
    lexical: float = 0.5
    label: float = 0.2  # the query names the item's speaker
    time_window: float = 0.2  # the item's timestamp fits the query's time window
    time_mention: float = 0.1  # a "when" question and an item that mentions a time
    neighbour: float = 0.0  # adjacent-turn smoothing (no gain once the signals carry the previous turn)
    group: float = 0.2  # session prior
    group_top: int = 3


def hybrid_scores(
    dense: Sequence[Sequence[float] | np.ndarray],
    lexical: Sequence[Sequence[float] | np.ndarray],
    *,
    groups: Sequence[Hashable],
    positions: Sequence[int],
    label_match: Sequence[float] | np.ndarray | None = None,
    time_fit: Sequence[float] | np.ndarray | None = None,
    time_mention: Sequence[float] | np.ndarray | None = None,
    weights: HybridWeights | None = None,
) -> np.ndarray:
    """Final scores of candidate items: fusion -> priors -> neighbour smoothing -> group prior.

    `dense` and `lexical` hold one or more raw signals each (aligned with the candidates). The optional priors
    are per-item values in [0, 1]: pass `time_mention` only for questions that ask for a time.
    """
    import numpy as np

    w = weights or HybridWeights()
    size = len(groups)
    score = np.zeros(size)
    if dense:
        score += w.dense * linear_fusion(dense)
    if lexical:
        score += w.lexical * linear_fusion(lexical)
    for weight, prior in ((w.label, label_match), (w.time_window, time_fit), (w.time_mention, time_mention)):
        if prior is not None and weight:
            score += weight * _array(prior)
    score = neighbour_smoothing(score, groups, positions, w.neighbour)
    return group_prior(score, groups, w.group, top=w.group_top)
