"""Percentiles used by every benchmark."""

from core.metrics import percentiles


def test_percentiles_use_the_nearest_rank() -> None:
    assert percentiles(list(range(1, 101))) == {"p50": 51, "p95": 95}
    assert percentiles([3.0]) == {"p50": 3.0, "p95": 3.0}
    assert percentiles([]) == {"p50": 0.0, "p95": 0.0}
    assert percentiles([0.5, 0.12345], digits=3) == {"p50": 0.123, "p95": 0.5}  # sorted, then rounded
