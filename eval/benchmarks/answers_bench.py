"""`bench answers`: LoCoMo questions answered offline, the extractive answerer beside the embedded model.

A fixed-seed sample of the single-hop (category 4) and temporal (category 2) questions. Each question's
conversation is written into a fresh store through the normal per-turn storage path (as `bench retrieval`
does) and searched by the normal pipeline (`recall_limit` memories, the app's default); then, on the same
memories and the same prompt:

- the extractive answerer (`core/generation/extractive.py`) answers, every speaker's lines being evidence
  (both are people here; in the app only the user's are). Scored twice: its span (the answer proper,
  empty when it says the answer is not in memory) and its whole reply;
- the embedded model answers the prompt the app would send it (greedy, at most `max_tokens`), on the first
  `model_sample` questions of the sample (it takes seconds a question on 2 cores).

Metrics, per the LoCoMo paper's QA scoring: `contains_gold` (the normalised gold answer appears in the
normalised answer) and token F1. The model's answers also go through the objective checks
(`eval/objective_checks.py`) as generated and as the user would see them (after the reply guard). The
extractive part also reports, per evidence threshold, how many questions it answers and how often those
contain the gold: the calibration of its threshold.
"""

from __future__ import annotations

import asyncio
import random
import re
import string
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from core.generation.extractive import ExtractiveAnswerer, RecallAnswer
from core.generation.reply_guard import clean_reply
from core.pipeline.analyzer import Analysis
from core.ports import RecalledMemory
from core.prompt.assembly import AssembledPrompt
from core.prompt.builder import PromptBuilder, citation_map
from core.providers.base import ChatProvider
from core.turn_context import TurnContext
from core.types import ChatRequest
from eval.benchmarks.locomo import CATEGORY_NAMES, LocomoConversation, LocomoQuestion, load_locomo
from eval.benchmarks.retrieval_bench import ingest
from eval.objective_checks import CHECKS, check_answer
from memory.candidates import QueryContext
from memory.service import MemoryService

CATEGORIES = (4, 2)  # single-hop, temporal
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
# LoCoMo writes 18 of its 762 gold answers (categories 1-4) with the day run into the month ("The Friday
# before 24June, 2022")
_DAY_INTO_MONTH = re.compile(
    r"(\d)(january|february|march|april|may|june|july|august|september|october|november|december)\b"
)


def normalise(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces (the LoCoMo/SQuAD answer normalisation); a
    day number run into its month is two words ("24June" -> "24 june")."""
    text = "".join(ch for ch in text.lower() if ch not in string.punctuation)
    return " ".join(_ARTICLES.sub(" ", _DAY_INTO_MONTH.sub(r"\1 \2", text)).split())


def token_f1(answer: str, gold: str) -> float:
    """Token-overlap F1 of the normalised answer against the normalised gold."""
    said, wanted = normalise(answer).split(), normalise(gold).split()
    common = sum((Counter(said) & Counter(wanted)).values())
    if not said or not wanted or common == 0:
        return 0.0
    precision, recall = common / len(said), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


def contains_gold(answer: str, gold: str) -> bool:
    wanted = normalise(gold)
    return bool(wanted) and wanted in normalise(answer)


def sample_questions(
    conversations: Sequence[LocomoConversation], size: int, seed: int
) -> list[tuple[LocomoConversation, LocomoQuestion]]:
    """A fixed-seed sample of the single-hop and temporal questions (all of them when fewer)."""
    pool = [(c, q) for c in conversations for q in c.questions if q.category in CATEGORIES]
    return random.Random(seed).sample(pool, min(size, len(pool)))


def _scores(pairs: Sequence[tuple[str, str, int]]) -> dict[str, Any]:
    """Mean contains-gold and F1 over (answer, gold, category) rows: overall and per category."""

    def block(rows: Sequence[tuple[str, str, int]]) -> dict[str, Any]:
        n = len(rows) or 1
        return {
            "questions": len(rows),
            "contains_gold": round(sum(contains_gold(a, g) for a, g, _ in rows) / n, 4),
            "token_f1": round(sum(token_f1(a, g) for a, g, _ in rows) / n, 4),
        }

    out = block(pairs)
    out["per_category"] = {
        CATEGORY_NAMES[cat]: block([r for r in pairs if r[2] == cat])
        for cat in CATEGORIES
        if any(r[2] == cat for r in pairs)
    }
    return out


def run_answers_benchmark(
    dataset_path: str | Path,
    make_service: Callable[[Path], MemoryService],
    answerer: ExtractiveAnswerer,
    prompt: PromptBuilder,
    model: ChatProvider | None,
    *,
    sample: int = 200,
    model_sample: int = 40,
    seed: int = 19,
    recall_limit: int = 6,
    max_tokens: int = 48,
) -> dict[str, Any]:
    """Both answerers on the same sample, memories and prompts (see the module docstring)."""
    chosen = sample_questions(load_locomo(dataset_path), sample, seed)
    loop = asyncio.new_event_loop()
    rows: list[dict[str, Any]] = []
    spent = {"extractive_ms": 0.0, "model_ms": 0.0}
    try:
        with tempfile.TemporaryDirectory(prefix="daemon-answers-") as folder:
            services: dict[str, MemoryService] = {}
            for conv, _ in chosen:
                if conv.sample_id not in services:
                    services[conv.sample_id] = make_service(Path(folder) / conv.sample_id)
                    ingest(services[conv.sample_id], conv)
            for index, (conv, question) in enumerate(chosen):
                started = time.perf_counter()
                reply, built = loop.run_until_complete(
                    answer_extractively(
                        services[conv.sample_id], conv, question, answerer, prompt, recall_limit
                    )
                )
                spent["extractive_ms"] += (time.perf_counter() - started) * 1000
                row = {
                    "question": question.question,
                    "gold": question.answer,
                    "category": question.category,
                    "extractive": reply.text,
                    "span": reply.evidence.answer if reply.evidence else "",
                    "resolved": reply.evidence.resolved if reply.evidence else "",
                    "evidence_score": reply.best_score,
                }
                if model is not None and index < model_sample:
                    started = time.perf_counter()
                    request = ChatRequest(
                        messages=tuple(built.messages()), temperature=0.0, max_tokens=max_tokens
                    )
                    said = loop.run_until_complete(model.complete(request)).text.strip()
                    row["model"] = said
                    spent["model_ms"] += (time.perf_counter() - started) * 1000
                    row["model_checks"] = _checked(said, question.question, built)
                rows.append(row)
            for service in services.values():
                service.close()
    finally:
        loop.close()
    return _report(rows, answerer.threshold, spent, seed)


async def answer_extractively(
    service: MemoryService,
    conv: LocomoConversation,
    question: LocomoQuestion,
    answerer: ExtractiveAnswerer,
    prompt: PromptBuilder,
    recall_limit: int = 6,
) -> tuple[RecallAnswer, AssembledPrompt]:
    """This benchmark's method for one question: search the conversation's store, build the prompt, and
    answer extractively from every speaker's lines (with the prompt's markers)."""
    memories = await _recall(service, conv, question, recall_limit)
    built = await prompt.build(_context(question, memories))
    markers = {item.id: f"[{m}]" for m, item in citation_map(built).items() if item.id}
    return answerer.answer(question.question, memories, (), markers, user_only=False), built


def _checked(answer: str, question: str, built: AssembledPrompt) -> dict[str, list[str]]:
    """The objective checks that fail the model's raw answer and what the user would see of it."""
    names = set(citation_map(built))
    prompt_text = "\n".join(message.content for message in built.messages())
    shown = clean_reply(answer, names).text
    return {
        which: [
            r.name
            for r in check_answer(text, question=question, prompt_text=prompt_text, markers=names)
            if not r.passed
        ]
        for which, text in (("raw", answer), ("shown", shown))
    }


async def _recall(
    service: MemoryService, conv: LocomoConversation, question: LocomoQuestion, limit: int
) -> list[RecalledMemory]:
    now = max(u.timestamp.timestamp() for u in conv.units)
    ctx = QueryContext(query=question.question, now=now, intent="factual_recall", speakers=conv.speakers)
    found = await service.search(ctx, collections=["conversations"], k=limit)
    return [
        RecalledMemory(m.id, m.collection, m.text, m.score, float(m.metadata.get("created_at") or 0) or None)
        for m in found
    ]


def _context(question: LocomoQuestion, memories: Sequence[RecalledMemory]) -> TurnContext:
    intent = "temporal_recall" if question.category == 2 else "factual_recall"
    analysis = Analysis(intent, 1.0, "neutral", 0.0, (), (), question.question)
    now = max((m.created_at or 0.0 for m in memories), default=0.0)
    return TurnContext(question.question, analysis=analysis, memories=tuple(memories), now=now)


def _report(
    rows: list[dict[str, Any]], threshold: float, spent: dict[str, float], seed: int
) -> dict[str, Any]:
    def spans(key: str) -> list[tuple[str, str, int]]:
        return [(r[key], r["gold"], r["category"]) for r in rows]

    answered = [r for r in rows if r["evidence_score"] >= threshold]
    calibration = []
    for level in THRESHOLDS:
        kept = [r for r in rows if r["evidence_score"] >= level]
        hit = sum(contains_gold(r["extractive"], r["gold"]) for r in kept)
        calibration.append(
            {
                "threshold": level,
                "answered": len(kept),
                "contains_gold_when_answered": round(hit / (len(kept) or 1), 4),
            }
        )
    modelled = [r for r in rows if "model" in r]
    report: dict[str, Any] = {
        "seed": seed,
        "questions": len(rows),
        "threshold": threshold,
        "extractive": {
            "span": _scores(spans("span")),
            "reply": _scores(spans("extractive")),
            "answered": len(answered),
            "ms_per_question": round(spent["extractive_ms"] / (len(rows) or 1), 1),
            "calibration": calibration,
        },
    }
    if modelled:
        report["embedded_model"] = {
            **_scores([(r["model"], r["gold"], r["category"]) for r in modelled]),
            "ms_per_question": round(spent["model_ms"] / len(modelled), 1),
        }
        report["embedded_model"]["failed_checks"] = {
            which: {check: sum(check in r["model_checks"][which] for r in modelled) for check in CHECKS}
            for which in ("raw", "shown")
        }
        report["extractive_on_model_sample"] = {
            "span": _scores([(r["span"], r["gold"], r["category"]) for r in modelled]),
            "reply": _scores([(r["extractive"], r["gold"], r["category"]) for r in modelled]),
        }
    report["rows"] = rows
    return report


def answers_headline(result: dict[str, Any]) -> str:
    """The human-readable summary of `bench answers`."""
    ext = result["extractive"]

    def line(name: str, row: dict[str, Any]) -> str:
        return f"{name:<18} contains-gold {row['contains_gold']:.3f}  F1 {row['token_f1']:.3f}"

    lines = [
        f"{result['questions']} LoCoMo questions (single-hop + temporal), seed {result['seed']}",
        line("extractive span", ext["span"]),
        line("extractive reply", ext["reply"])
        + f"  ({ext['answered']} answered, {ext['ms_per_question']} ms/q)",
    ]
    if "embedded_model" in result:
        model, same = result["embedded_model"], result["extractive_on_model_sample"]
        lines += [
            f"on the embedded model's {model['questions']} questions:",
            line("  embedded model", model) + f"  ({model['ms_per_question']} ms/q)",
            line("  extractive span", same["span"]),
            line("  extractive reply", same["reply"]),
        ]
        for which, label in (("raw", "as generated"), ("shown", "as shown (reply guard)")):
            failed = model["failed_checks"][which]
            counts = ", ".join(f"{check} {count}" for check, count in failed.items())
            lines.append(f"  objective checks failed, {label}: {counts}")
    return "\n".join(lines)
