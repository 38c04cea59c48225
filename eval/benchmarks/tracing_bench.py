"""`bench tracing`: what local tracing costs a turn, measured as turns with and without it in the same run.

The whole app runs in a temporary data dir (MiniLM, spaCy, the tone and intent heads, Chroma, the journal),
answered by the echo provider so that no model's time hides the overhead: this is the worst case, where
the pipeline is all there is. Memory holds `seed` exchanges first, so retrieval has records to search.
The turns alternate traced and untraced (in pairs whose order alternates too), on the same orchestrator,
so drift in the machine's speed falls on both; the figure is the ratio of the medians.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from core.events import Done
from core.metrics import percentiles
from core.orchestrator import Orchestrator

MESSAGES = (
    "I went hiking near the lake with my sister Jo today.",
    "What did I tell you about my sister?",
    "Can you remind me what I said about work last week?",
    "I'm thinking of learning to play the cello.",
    "How do I keep sourdough starter alive?",
    "My manager Sam moved our deadline to Friday.",
    "What do you remember about me?",
    "I feel a bit tired but the weekend was good.",
)


def run_tracing_benchmark(orchestrator: Orchestrator, *, turns: int, seed: int) -> dict[str, Any]:
    """Median and p95 turn latency with tracing and without, and the trace bytes written per turn."""
    log = orchestrator.traces
    if log is None:
        raise ValueError("the orchestrator was built without tracing (tracing.enabled: false)")
    asyncio.run(_seed(orchestrator, seed))
    timings: dict[str, list[float]] = {"traced": [], "untraced": []}
    session = orchestrator.new_session()
    for index in range(turns):
        order = ("traced", "untraced") if index % 2 == 0 else ("untraced", "traced")
        for mode in order:
            orchestrator.traces = log if mode == "traced" else None
            message = MESSAGES[(index * 2 + len(timings[mode])) % len(MESSAGES)]
            timings[mode].append(_timed_turn(orchestrator, message, session))
    orchestrator.traces = log
    written = sum(path.stat().st_size for path in log.files())
    return _figures(turns, seed, timings, written)


async def _seed(orchestrator: Orchestrator, exchanges: int) -> None:
    session = orchestrator.new_session()
    for index in range(exchanges):
        said = MESSAGES[index % len(MESSAGES)]
        await orchestrator.record_exchange(session, f"{said} (note {index})", "Noted.", model="bench:seed")


def _timed_turn(orchestrator: Orchestrator, message: str, session: str) -> float:
    async def turn() -> None:
        async for event in orchestrator.run_turn(message, session_id=session):
            if isinstance(event, Done):
                return

    started = time.perf_counter()
    asyncio.run(turn())
    return (time.perf_counter() - started) * 1000


def _figures(turns: int, seed: int, timings: dict[str, list[float]], written: int) -> dict[str, Any]:
    traced, untraced = timings["traced"], timings["untraced"]
    ratio = statistics.median(traced) / statistics.median(untraced)
    return {
        "turns": turns,
        "seeded_exchanges": seed,
        "traced_ms": percentiles(traced),
        "untraced_ms": percentiles(untraced),
        "ratio_p50": round(ratio, 4),
        "overhead_pct": round((ratio - 1) * 100, 2),
        "trace_bytes_per_turn": round(written / max(1, len(traced)), 1),
    }


def tracing_headline(result: dict[str, Any]) -> str:
    """The benchmark as a small table."""
    traced, untraced = result["traced_ms"], result["untraced_ms"]
    return "\n".join(
        [
            f"{result['turns']} turns each way, {result['seeded_exchanges']} exchanges in memory, echo model",
            "turns          p50 ms    p95 ms",
            f"untraced   {untraced['p50']:>9.1f} {untraced['p95']:>9.1f}   (baseline)",
            f"traced     {traced['p50']:>9.1f} {traced['p95']:>9.1f}   ratio {result['ratio_p50']:.4f} "
            f"({result['overhead_pct']:+.2f} %)",
            f"trace written per turn: {result['trace_bytes_per_turn']:.0f} bytes",
        ]
    )
