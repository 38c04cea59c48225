"""LoCoMo retrieval benchmark: turn units, metrics, and a runner with pluggable retrievers.

The rules (docs/architecture.md, "Benchmark rules"): every turn of a conversation becomes one unit whose text
is `Speaker: text` with the image caption appended, whose timestamp is the session's date-time and whose
session is the session number. Only the turns are used: the annotated summaries and observations are derived
from the answers and would leak them. For each question of categories 1-4 with evidence ids, the retriever
returns ranked items, each covering one or more dialog ids; recall@k is the share of evidence ids among the
first k *distinct* dialog ids, so an item covering three turns uses three slots.

A retriever is built per conversation by a `RetrieverFactory` (conversation -> search function), so the same
runner measures the built-in methods and, later, the full memory pipeline over a real store.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from core.metrics import percentiles
from memory.embeddings import Embedder

CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_SESSION_KEY = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D:?(\d+):(\d+)")

SearchFn = Callable[[str], Sequence[Sequence[str]]]
"""query -> ranked items, best first; each item is the list of dialog ids (`D3:7`) it covers."""
RetrieverFactory = Callable[["LocomoConversation"], SearchFn]
"""Builds the index over one conversation's units and returns its search function."""


@dataclass(frozen=True)
class TurnUnit:
    """One stored turn: what the memory pipeline would write for it."""

    uid: str  # the dialog id, e.g. "D3:7"
    text: str  # "Speaker: text [image: caption]"
    speaker: str
    session: int
    position: int  # 0-based index of the turn within its session
    timestamp: datetime  # the session's date-time


@dataclass(frozen=True)
class LocomoQuestion:
    """A benchmark question with its normalised evidence ids."""

    question: str
    answer: str
    evidence: tuple[str, ...]
    category: int


@dataclass(frozen=True)
class LocomoConversation:
    """One conversation: its speakers, units in chronological order and its questions (categories 1-4)."""

    sample_id: str
    speakers: tuple[str, str]
    units: tuple[TurnUnit, ...]
    questions: tuple[LocomoQuestion, ...]


def parse_session_datetime(text: str) -> datetime:
    """Parse LoCoMo's session stamp, e.g. `1:56 pm on 8 May, 2023`."""
    return datetime.strptime(" ".join(text.replace(",", "").split()), "%I:%M %p on %d %B %Y")


def unit_text(speaker: str, text: str, caption: str | None = None) -> str:
    """The stored text of a turn: `Speaker: text`, with the image caption appended when there is one."""
    body = f"{speaker}: {text.strip()}"
    return f"{body} [image: {caption.strip()}]" if caption and caption.strip() else body


def normalise_evidence(raw: Iterable[str], known: set[str]) -> tuple[str, ...]:
    """Split and repair evidence ids (`"D8:6; D9:17"`, `"D:11:26"`), keeping those that name a real turn."""
    out: list[str] = []
    for item in raw:
        for match in _DIA_ID.finditer(str(item)):
            uid = f"D{match.group(1)}:{match.group(2)}"
            if uid in known and uid not in out:
                out.append(uid)
    return tuple(out)


def sessions_in_order(conv: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]]]]:
    """A raw conversation's sessions as (number, turns), in the order they happened."""
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.fullmatch(k)))
    return [(number, conv[f"session_{number}"]) for number in numbers]


def _session_units(conv: dict[str, Any]) -> list[TurnUnit]:
    units: list[TurnUnit] = []
    for number, turns in sessions_in_order(conv):
        if not turns:
            continue
        stamp = parse_session_datetime(conv[f"session_{number}_date_time"])
        for position, turn in enumerate(turns):
            text = unit_text(turn["speaker"], turn.get("text", ""), turn.get("blip_caption"))
            units.append(TurnUnit(turn["dia_id"], text, turn["speaker"], number, position, stamp))
    return units


def load_locomo(path: str | Path) -> list[LocomoConversation]:
    """Load the dataset: units from the turns only, questions of categories 1-4 that have evidence."""
    conversations: list[LocomoConversation] = []
    for sample in json.loads(Path(path).read_text(encoding="utf-8")):
        conv = sample["conversation"]
        units = _session_units(conv)
        known = {u.uid for u in units}
        questions = []
        for qa in sample.get("qa", []):
            if qa.get("category") not in CATEGORY_NAMES:
                continue
            evidence = normalise_evidence(qa.get("evidence") or [], known)
            if evidence:
                questions.append(
                    LocomoQuestion(qa["question"], str(qa.get("answer", "")), evidence, qa["category"])
                )
        speakers = (conv["speaker_a"], conv["speaker_b"])
        conversations.append(
            LocomoConversation(sample["sample_id"], speakers, tuple(units), tuple(questions))
        )
    return conversations


def distinct_ids(ranked: Sequence[Sequence[str]], limit: int) -> list[str]:
    """The first `limit` distinct dialog ids of a ranking; an item covering n turns uses n slots."""
    out: list[str] = []
    seen: set[str] = set()
    for item in ranked:
        for uid in item:
            if uid not in seen:
                seen.add(uid)
                out.append(uid)
                if len(out) >= limit:
                    return out
    return out


def recall_at_k(ranked: Sequence[Sequence[str]], evidence: Sequence[str], k: int) -> float:
    """Share of the evidence ids among the first k distinct dialog ids."""
    if not evidence:
        return 0.0
    top = set(distinct_ids(ranked, k))
    return sum(1 for uid in set(evidence) if uid in top) / len(set(evidence))


def reciprocal_rank(ranked: Sequence[Sequence[str]], evidence: Sequence[str], limit: int = 100) -> float:
    """1 / slot rank of the first evidence id (0 when none is in the first `limit` distinct ids)."""
    wanted = set(evidence)
    for rank, uid in enumerate(distinct_ids(ranked, limit), start=1):
        if uid in wanted:
            return 1.0 / rank
    return 0.0


def summarise(rows: Sequence[tuple[int, Sequence[float], float]], ks: Sequence[int]) -> dict[str, Any]:
    """Mean recall@k and MRR over `(category, recalls per k, reciprocal rank)` rows: overall, per category."""

    def block(part: Sequence[tuple[int, Sequence[float], float]]) -> dict[str, Any]:
        n = len(part) or 1
        recall = {str(k): round(sum(r[1][j] for r in part) / n, 4) for j, k in enumerate(ks)}
        return {"questions": len(part), "recall": recall, "mrr": round(sum(r[2] for r in part) / n, 4)}

    out = block(rows)
    out["per_category"] = {
        str(cat): {"name": name, **block([r for r in rows if r[0] == cat])}
        for cat, name in CATEGORY_NAMES.items()
        if any(r[0] == cat for r in rows)
    }
    return out


def evaluate_retriever(
    conversations: Sequence[LocomoConversation], factory: RetrieverFactory, ks: Sequence[int] = (5, 10, 20)
) -> dict[str, Any]:
    """Build the retriever per conversation, ask every question, and summarise recall, MRR and latency."""
    rows: list[tuple[int, list[float], float]] = []
    latencies: list[float] = []
    for conv in conversations:
        search = factory(conv)
        for question in conv.questions:
            started = time.perf_counter()
            ranked = search(question.question)
            latencies.append((time.perf_counter() - started) * 1000.0)
            recalls = [recall_at_k(ranked, question.evidence, k) for k in ks]
            rows.append((question.category, recalls, reciprocal_rank(ranked, question.evidence)))
    return {**summarise(rows, ks), "latency_ms": percentiles(latencies, 3)}


def query_embedding_latency(embedder: Embedder, queries: Sequence[str]) -> dict[str, float]:
    """p50/p95 of embedding one query at a time (uncached): the cost every method pays before retrieval."""
    timings = []
    embedder.embed(["warm-up"])  # the first call loads the model
    for query in queries:
        started = time.perf_counter()
        embedder.embed([query])
        timings.append((time.perf_counter() - started) * 1000.0)
    return percentiles(timings, 3)


def run_locomo(
    dataset_path: str | Path,
    ks: Sequence[int] = (5, 10, 20),
    method: str | RetrieverFactory = "hybrid",
    *,
    embedder: Embedder | None = None,
    cache_dir: str | Path | None = None,
    baselines: Sequence[str] = ("dense", "bm25", "bm25_stemmed"),
) -> dict[str, Any]:
    """Run `method` and the baselines over the same units in one run.

    Returns {"questions", "recall": {"5", "10", "20"}, "mrr", "per_category", "latency_ms": {"p50", "p95"},
    "method", "baselines": {name: {same keys}}, "query_embedding_ms"}. Latencies are per query and exclude the
    query embedding (shared by every method; reported separately as `query_embedding_ms`).
    """
    from eval.benchmarks.locomo_methods import UnitEncoder, make_factory
    from memory.embeddings import MiniLMEmbedder

    conversations = load_locomo(dataset_path)
    embedder = embedder or MiniLMEmbedder()
    encoder = UnitEncoder(embedder, cache_dir)
    questions = [q.question for conv in conversations for q in conv.questions]
    encoder.prime_queries(questions)
    factory = make_factory(method, encoder) if isinstance(method, str) else method
    result = evaluate_retriever(conversations, factory, ks)
    result["method"] = method if isinstance(method, str) else getattr(method, "__name__", "custom")
    result["baselines"] = {
        name: evaluate_retriever(conversations, make_factory(name, encoder), ks) for name in baselines
    }
    result["query_embedding_ms"] = query_embedding_latency(embedder, questions[:50])
    return result
