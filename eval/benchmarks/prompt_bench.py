"""`bench prompt`: how long assembling the prompt takes at a given budget, next to gathering its context.

A fresh data dir gets a history of sessions (the session-end benchmark's realistic exchanges, with their
facts, summaries and reflections from running the session-end steps), then every query of the set is
previewed (`Orchestrator.preview`: the whole context pipeline and the prompt, no model call). Gathering
(analysis, graph, retrieval over 13 collections, profile) is the same run's baseline; assembly is the
section building, compression and budget fitting measured against it.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from core.metrics import percentiles
from eval.benchmarks.session_end_bench import Built, seed

QUERIES = (
    "Where does my sister live?",
    "What did we talk about last week?",
    "How do I reset my router again?",
    "I'm stressed about work, can you help me think it through?",
    "What's left on the garden project?",
    "Write a short poem about my dog Rex.",
    "What do you remember about me?",
    "hey, how's it going?",
    "Can you explain Python decorators with an example from my projects?",
    "When did I move to Chicago?",
)


class Previewing(Built, Protocol):
    orchestrator: Any


def run_prompt_benchmark(
    build: Callable[[Path], Previewing], budget: int, sessions: int = 4, rounds: int = 3
) -> dict[str, Any]:
    """Seed `sessions` sessions of 20 turns, end them, then preview every query `rounds` times."""
    with tempfile.TemporaryDirectory(prefix="daemon-bench-") as folder:
        data = Path(folder)
        ids = [seed(data, 20, time.time() - 86_400.0 * (sessions - i)) for i in range(sessions)]
        services = build(data)
        try:
            assert services.sessions is not None
            for session in ids:
                asyncio.run(services.sessions.end(session))
            timings, sizes = _preview_all(services, QUERIES, budget, rounds)
        finally:
            services.close()
    gather = percentiles([t["gather_ms"] for t in timings])
    assemble = percentiles([t["assemble_ms"] for t in timings])
    return {
        "budget": budget,
        "previews": len(timings),
        "assemble_ms": {"p50": round(assemble["p50"], 2), "p95": round(assemble["p95"], 2)},
        "prompt_tokens": {"p50": sorted(sizes)[len(sizes) // 2], "max": max(sizes)},
        "baseline": {"gather_ms": {"p50": round(gather["p50"], 2), "p95": round(gather["p95"], 2)}},
    }


def _preview_all(
    services: Previewing, queries: Sequence[str], budget: int, rounds: int
) -> tuple[list[dict[str, float]], list[int]]:
    timings: list[dict[str, float]] = []
    sizes: list[int] = []
    for _ in range(rounds):
        for query in queries:
            measured: dict[str, float] = {}
            prompt = asyncio.run(services.orchestrator.preview(query, budget=budget, timings=measured))
            timings.append(measured)
            sizes.append(prompt.total_tokens)
    return timings, sizes
