"""`bench latency`: the full search path against its floor, on N synthetic memories over the 13 collections.

pipeline = query embedding + concurrent dense and BM25 candidates in every collection + gating + scoring.
floor    = query embedding + one nearest-neighbour query per collection for 10 neighbours (run
           concurrently, like the pipeline's own queries; the pipeline itself asks for 50 per collection,
           so this floor is the stricter one). Both use fresh query texts, so no cache helps either side.
Vectors of the synthetic memories are random unit vectors (latency does not depend on their meaning);
texts are random sentences over a fixed vocabulary so BM25 has realistic postings.

With `empty_sources` the five collections only knowledge sources fill (Wikipedia, git, documents, Obsidian,
images) stay empty, as on a fresh install, and the pipeline is timed beside itself searching every enabled
collection anyway (`pipeline_all`: `RetrievalSettings.skip_empty=False`), in the same run on the same data.
"""

from __future__ import annotations

import asyncio
import os
import random
import resource
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.metrics import percentiles
from memory.candidates import QueryContext
from memory.collections import COLLECTIONS, get_spec
from memory.service import MemoryService
from memory.vector_store import Record

ServiceFactory = Callable[[Path], MemoryService]
SOURCE_COLLECTIONS = ("wiki_knowledge", "git_commits", "reference_docs", "obsidian_notes", "visual_memories")
_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ren",
    "to",
    "sa",
    "vi",
    "nu",
    "pe",
    "dor",
    "an",
    "el",
    "is",
    "ur",
    "bo",
    "qui",
)


def vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    words = {"".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(size * 2)}
    return sorted(words)[:size]


def sentence(rng: random.Random, words: Sequence[str], low: int = 8, high: int = 30) -> str:
    # Zipf-like word choice: a few frequent words, a long tail, like real text.
    return " ".join(
        words[min(int(rng.paretovariate(1.1)) - 1, len(words) - 1)] for _ in range(rng.randint(low, high))
    )


def _metadata(collection: str, index: int, rng: random.Random, now: float) -> dict[str, Any]:
    spec = get_spec(collection)
    meta: dict[str, Any] = {"created_at": now - rng.uniform(0, 365 * 86400), "importance": rng.random()}
    fillers = {"str": f"v{index % 17}", "int": index % 5, "float": rng.random(), "bool": False, "json": "[]"}
    for field in spec.fields:
        if field.required and field.name not in meta:
            meta[field.name] = fillers[field.kind]
    if collection == "conversations":
        meta.update(session_id=f"s{index // 20}", seq=index % 20)
    return meta


def populate(
    service: MemoryService, total: int, seed: int = 7, batch: int = 2000, empty: Sequence[str] = ()
) -> None:
    """Write `total` synthetic memories spread evenly over the 13 collections but `empty` (random unit
    vectors)."""
    import numpy as np

    rng = random.Random(seed)
    vectors_rng = np.random.default_rng(seed)
    words = vocabulary(rng)
    now = time.time()
    names = [spec.name for spec in COLLECTIONS if spec.name not in empty]
    per = {name: total // len(names) + (1 if i < total % len(names) else 0) for i, name in enumerate(names)}
    for name, count in per.items():
        for start in range(0, count, batch):
            size = min(batch, count - start)
            records = [
                Record(f"{name[:4]}_{start + i}", sentence(rng, words), _metadata(name, start + i, rng, now))
                for i in range(size)
            ]
            vectors = vectors_rng.standard_normal((size, service.embedder.dim)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            service.store.upsert(name, records, vectors)
    service.open()  # rebuild the lexical indexes from the store, as a restart would


async def _floor(service: MemoryService, query: str) -> None:
    vector = await asyncio.to_thread(lambda: service.embedder.embed([query])[0])
    await asyncio.gather(
        *(asyncio.to_thread(service.store.query, spec.name, vector, 10) for spec in COLLECTIONS)
    )


async def _pipeline(service: MemoryService, query: str) -> None:
    await service.search(QueryContext(query=query, now=time.time(), intent="general"), k=10)


def _rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


def run_latency_benchmark(
    make_service: ServiceFactory, memories: int, queries: int = 40, *, empty_sources: bool = False
) -> dict[str, Any]:
    """p50/p95 of the pipeline and the floor, their ratio, RSS, on `memories` synthetic memories; with
    `empty_sources`, also the pipeline searching the empty source collections (`pipeline_all`)."""
    rng = random.Random(11)
    with tempfile.TemporaryDirectory(prefix="daemon-latency-") as folder:
        service = make_service(Path(folder))
        started = time.perf_counter()
        populate(service, memories, empty=SOURCE_COLLECTIONS if empty_sources else ())
        load_s = time.perf_counter() - started
        runs = {"pipeline": lambda q: _pipeline(service, q), "floor": lambda q: _floor(service, q)}
        if empty_sources:  # the same store, index and payloads; only the skip is off
            every = MemoryService(
                service.store,
                service.profiles,
                replace(service.settings, skip_empty=False),
                lexical=service.lexical,
            )
            runs["pipeline_all"] = lambda q: _pipeline(every, q)
        words = vocabulary(random.Random(7))
        texts = [sentence(rng, words, 4, 12) for _ in range(2 * queries + 4)]
        loop = asyncio.new_event_loop()
        try:
            for text in texts[:4]:  # warm-up: model load, first queries
                for run in runs.values():
                    loop.run_until_complete(run(text + " warm"))
            timings: dict[str, list[float]] = {kind: [] for kind in runs}
            kinds = list(runs)
            for i, text in enumerate(texts[4:]):
                # rotate which runs first, so no side always finds warm caches
                for kind in kinds[i % len(kinds) :] + kinds[: i % len(kinds)]:
                    begin = time.perf_counter()
                    loop.run_until_complete(runs[kind](f"{text} {kind}"))
                    timings[kind].append((time.perf_counter() - begin) * 1000)
        finally:
            loop.close()
            service.close()
    pipeline, floor = percentiles(timings["pipeline"]), percentiles(timings["floor"])
    return {
        "memories": memories,
        "pipeline_ms": pipeline,
        "floor_ms": floor,
        "ratio_p50": round(pipeline["p50"] / floor["p50"], 2) if floor["p50"] else None,
        "rss_mb": _rss_mb(),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "load_s": round(load_s, 1),
        "queries": len(timings["pipeline"]),
        **(_skip_figures(timings, pipeline) if empty_sources else {}),
    }


def _skip_figures(timings: dict[str, list[float]], pipeline: dict[str, float]) -> dict[str, Any]:
    every = percentiles(timings["pipeline_all"])
    return {
        "empty_collections": list(SOURCE_COLLECTIONS),
        "pipeline_all_ms": every,
        "skip_ratio_p50": round(pipeline["p50"] / every["p50"], 2) if every["p50"] else None,
    }
