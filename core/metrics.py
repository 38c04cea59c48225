"""Small measurement helpers shared by benchmarks and diagnostics."""

from __future__ import annotations

from collections.abc import Sequence


def percentiles(values: Sequence[float], digits: int = 2) -> dict[str, float]:
    """p50 and p95 of `values` (nearest rank on the sorted values); zeros for no values."""
    if not values:
        return {"p50": 0.0, "p95": 0.0}
    ordered = sorted(values)

    def rank(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    return {"p50": round(rank(0.5), digits), "p95": round(rank(0.95), digits)}
