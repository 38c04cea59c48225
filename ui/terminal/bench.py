"""What `bench …` prints: one JSON object with `--json`, else the benchmark's headline."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ui.shared.payloads import print_json

Headline = Callable[[dict[str, Any]], str]


def print_benchmark(result: dict[str, Any], *, as_json: bool, headline: Headline | None = None) -> int:
    """Print a benchmark's result (the whole result as indented JSON when it has no headline of its own)."""
    if as_json:
        print_json(result)
    else:
        print(headline(result) if headline else json.dumps(result, indent=2))
    return 0


def retrieval_headline(result: dict[str, Any]) -> str:
    """`bench retrieval`: recall@k and MRR of the pipeline beside its baselines, and its latency."""
    rows = [("pipeline", result), *result["baselines"].items()]
    lines = [f"{result['questions']} questions   R@5    R@10   R@20   MRR"]
    for name, row in rows:
        recall = row["recall"]
        lines.append(
            f"{name:<12}        {recall['5']:.3f}  {recall['10']:.3f}  {recall['20']:.3f}  {row['mrr']:.3f}"
        )
    latency = result["latency_ms"]
    lines.append(f"pipeline latency per question: p50 {latency['p50']:.1f} ms, p95 {latency['p95']:.1f} ms")
    return "\n".join(lines)
