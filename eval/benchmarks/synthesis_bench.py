"""`bench synthesis`: the filter on a generated corpus (eval/benchmarks/synthesis_corpus.py).

The corpus goes into a fresh store (real Chroma, MiniLM) and a fresh knowledge graph; then, in one run:
- the domain reader's accuracy on the corpus's labelled texts (the domain-crossing stage rests on it);
- a synthesis run (retrieval and graph walks; cross-store only with a judge model) and what each stage
  passed and rejected, with each generator's throughput;
- the planted candidates (restatements, same-domain pairs, word salad) through the same filter: which
  stage stopped each, and how many survived the offline stages (the target is none);
- the baseline: random pairs of memories with a generic bridge, and the share that passes the offline
  stages, beside the generated candidates' share.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eval.benchmarks.synthesis_corpus import SynthesisCorpus, build_corpus, random_pairs
from knowledge.graph import KnowledgeGraph
from knowledge.synthesis.book import SYNTHESIS_FILE, SynthesisBook
from knowledge.synthesis.candidate import Reading
from knowledge.synthesis.engine import RunBudget, SynthesisEngine
from knowledge.synthesis.stages import STAGES, EarlierBridges
from memory.service import MemoryService
from memory.vector_store import Record

OFFLINE = STAGES[:5]


EngineFor = Callable[[SynthesisBook, Callable[[], KnowledgeGraph], int], SynthesisEngine]


def run_synthesis_benchmark(
    memory: MemoryService,
    folder: Path,
    engine_for: EngineFor,
    *,
    seed: int = 7,
    baseline_pairs: int = 100,
) -> dict[str, Any]:
    """The figures above, as one JSON-ready dict; `engine_for(book, graph, seed)` builds the engine as the
    app does (over `memory`, with no judge)."""
    corpus = build_corpus(seed)
    store_corpus(memory, corpus)
    graph = corpus_graph(corpus)
    book = SynthesisBook(folder / SYNTHESIS_FILE)
    try:
        engine = engine_for(book, lambda: graph, seed)
        report = asyncio.run(engine.run(RunBudget(seconds=600, candidates=60, seeds=len(corpus.texts))))
        planted = _planted(engine, corpus)
        baseline = _read(engine, random_pairs(corpus, random.Random(seed), baseline_pairs))
        queue = book.stats()
    finally:
        book.close()
    generated = sum(g["candidates"] for g in report["generated"].values())
    kept = generated - sum(s["rejected"] for s in report["stages"]) - report["duplicates"]
    return {
        "corpus": {
            "domains": len(corpus.domains),
            "memories": sum(t.collection == "obsidian_notes" for t in corpus.texts),
            "documents": sum(t.collection == "reference_docs" for t in corpus.texts),
            "graph_facts": len(corpus.triples),
            "planted": dict(Counter(kind for kind, _ in corpus.planted)),
        },
        "domain_accuracy": _domain_accuracy(engine, corpus),
        "generators": {
            name: {**g, "per_s": round(g["candidates"] / g["seconds"], 2) if g["seconds"] else None}
            for name, g in report["generated"].items()
        },
        "stages": report["stages"],
        "generated_pass_rate": round(kept / generated, 4) if generated else None,
        "waiting_for_judge": report["waiting"],
        "duplicates": report["duplicates"],
        "planted": planted["kinds"],
        "planted_surviving": planted["surviving"],
        "random_baseline_pass_rate": _pass_rate(baseline),
        "random_baseline_stopped_by": dict(Counter(r.rejected_at or r.outcome for r in baseline)),
        "queue": queue["by_status"],
        "judge": None,
        "notes": report["notes"],
        "seed": seed,
    }


def store_corpus(memory: MemoryService, corpus: SynthesisCorpus) -> None:
    """The corpus's memories as notes and its documents as documents, through the normal write path."""
    now = time.time()
    notes = [
        Record(t.id, t.text, {"file_path": f"{t.id}.md", "title": t.id, "created_at": now})
        for t in corpus.texts
        if t.collection == "obsidian_notes"
    ]
    documents = [
        Record(t.id, t.text, {"document_id": t.id, "title": t.id, "chunk_index": 0, "created_at": now})
        for t in corpus.texts
        if t.collection == "reference_docs"
    ]
    memory.add("obsidian_notes", notes)
    memory.add("reference_docs", documents)


def corpus_graph(corpus: SynthesisCorpus) -> KnowledgeGraph:
    """A knowledge graph of the corpus's facts (each pattern memory's subject, relation and concept)."""
    graph = KnowledgeGraph()
    for subject, relation, concept, fact_id in corpus.triples:
        source, target = graph.add_entity(subject), graph.add_entity(concept)
        graph.add_relation(source, relation.replace(" ", "_"), target, fact_id=fact_id)
    return graph


def _read(engine: SynthesisEngine, candidates: list[Any]) -> list[Reading]:
    """Readings on the offline stages, each candidate on its own (no internal-novelty memory between them)."""
    return [engine.filter.read_offline([c], EarlierBridges())[0] for c in candidates]


def _pass_rate(readings: list[Reading]) -> float | None:
    if not readings:
        return None
    return round(sum(r.outcome in ("passed", "waiting") for r in readings) / len(readings), 4)


def _planted(engine: SynthesisEngine, corpus: SynthesisCorpus) -> dict[str, Any]:
    readings = _read(engine, [c for _, c in corpus.planted])
    kinds: dict[str, dict[str, Any]] = {}
    surviving = 0
    for (kind, _), reading in zip(corpus.planted, readings, strict=True):
        entry = kinds.setdefault(kind, {"n": 0, "stopped_by": dict.fromkeys(OFFLINE, 0), "surviving": 0})
        entry["n"] += 1
        if reading.outcome in ("passed", "waiting"):
            entry["surviving"] += 1
            surviving += 1
        else:
            entry["stopped_by"][reading.rejected_at or "internal_novelty"] += 1
    return {"kinds": kinds, "surviving": surviving}


def _domain_accuracy(engine: SynthesisEngine, corpus: SynthesisCorpus) -> dict[str, Any]:
    readings = engine.filter.domains.read([t.text for t in corpus.texts])
    right = sum(r.domain == t.domain for r, t in zip(readings, corpus.texts, strict=True))
    unassigned = sum(r.domain == "unassigned" for r in readings)
    return {"n": len(readings), "accuracy": round(right / len(readings), 4), "unassigned": unassigned}


def synthesis_headline(result: dict[str, Any]) -> str:
    """The benchmark as a few small tables."""
    lines = [
        f"corpus: {result['corpus']['memories']} memories, {result['corpus']['documents']} documents, "
        f"{result['corpus']['domains']} domains; domain reading accuracy "
        f"{result['domain_accuracy']['accuracy']:.1%} ({result['domain_accuracy']['unassigned']} unassigned)",
        "generator      candidates   per s",
    ]
    for name, g in result["generators"].items():
        lines.append(f"{name:<14} {g['candidates']:>10} {g['per_s'] or 0:>7.1f}")
    lines.append("stage               passed  rejected")
    for stage in result["stages"]:
        lines.append(f"{stage['name']:<19} {stage['passed']:>7} {stage['rejected']:>9}")
    lines.append(f"waiting for a judge: {result['waiting_for_judge']}   duplicates: {result['duplicates']}")
    lines.append("planted        n  stopped by (stage: n)                          surviving")
    for kind, entry in result["planted"].items():
        stopped = ", ".join(f"{s}: {n}" for s, n in entry["stopped_by"].items() if n)
        lines.append(f"{kind:<13} {entry['n']:>2}  {stopped:<46} {entry['surviving']:>3}")
    generated = result["generated_pass_rate"]
    lines.append(
        f"offline pass rate: generated {generated if generated is not None else 0:.1%} vs random pairs "
        f"{result['random_baseline_pass_rate']:.1%} (baseline); "
        f"planted surviving: {result['planted_surviving']}"
    )
    lines.extend(f"note: {note}" for note in result["notes"])
    return "\n".join(lines)
