"""Ablation runs: answers to saved prompts and their variants, generated in batches, resumable, then judged
blind, pair by pair, against the full prompt's answer.

`python main.py eval variants --snapshot FILE… --model NAME --out DIR [--strategies S…] [--judge MODEL]`:

1. **Jobs.** Each snapshot is replayed (hash-checked, `eval/snapshots.py`) and its variants generated from
   the section registry (`eval/variants.py`); a job is one (snapshot, variant).
2. **Generation.** Each job's prompt goes to the model (temperature 0) under a concurrency cap and a rate
   limit (starts per minute); each answer is appended to `DIR/answers.jsonl` with its tokens, prompt hash,
   time and the objective checks it fails (`eval/objective_checks.py`). A run that is interrupted resumes:
   jobs already on disk are not asked again. A progress bar goes to stderr.
3. **Judging** (with `--judge`). For every variant but `full`, the judge model sees the question and two
   answers, the variant's and the full prompt's, in an order drawn from a seeded generator (so neither
   position is favoured, and a rerun places them the same), and says which is better on accuracy,
   helpfulness, conciseness, tone and grounding, or a tie. Verdicts go to `DIR/judgments.jsonl` (resumable
   too), are mapped back from positions to variants, and are summed per variant and per strategy: a
   section whose leave-one-out variant loses to the full prompt earns its tokens.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from core.prompt.builder import citation_map
from core.types import ChatRequest, Message, ModelResponse
from eval.objective_checks import check_answer
from eval.snapshots import load, prompt_hash, replay
from eval.variants import STRATEGIES, Variant, variants


class Completes(Protocol):
    """What a run needs of a model (a `ChatProvider` is one): one answer to one request."""

    async def complete(self, request: ChatRequest) -> ModelResponse: ...


CRITERIA = ("accuracy", "helpfulness", "conciseness", "tone", "grounding")
ANSWERS, JUDGMENTS = "answers.jsonl", "judgments.jsonl"


@dataclass(frozen=True)
class Job:
    """One answer to generate: a snapshot's variant."""

    key: str  # "<snapshot stem>/<variant name>"
    snapshot: str
    query: str
    variant: Variant


def jobs(snapshot_files: Sequence[Path], strategies: Sequence[str] = STRATEGIES) -> list[Job]:
    """Every (snapshot, variant) of the files, in order; a file that no longer reproduces is an error."""
    out = []
    for path in snapshot_files:
        snapshot = load(path)
        prompt = replay(snapshot)
        for variant in variants(prompt, strategies):
            out.append(Job(f"{path.stem}/{variant.name}", path.stem, snapshot.provenance.query, variant))
    return out


def done_keys(path: Path) -> dict[str, dict[str, Any]]:
    """The rows already written to a JSONL file, by key (a torn last line is ignored: it is redone)."""
    rows: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return rows
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        rows[row["key"]] = row
    return rows


class Pacer:
    """At most `per_minute` starts a minute, spaced evenly (None: no limit). `clock` and `sleep` are
    injectable so a test does not wait."""

    def __init__(
        self,
        per_minute: float | None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        self._gap = 60.0 / per_minute if per_minute else 0.0
        self._clock, self._sleep = clock, sleep
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self._gap:
            return
        async with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self._gap
        if start > now:
            await self._sleep(start - now)


class Progress:
    """A one-line progress bar on a text stream (stderr)."""

    def __init__(self, total: int, label: str, stream: TextIO = sys.stderr) -> None:
        self._total, self._label, self._stream, self._done = total, label, stream, 0

    def step(self) -> None:
        self._done += 1
        filled = int(30 * self._done / max(self._total, 1))
        bar = "#" * filled + "-" * (30 - filled)
        end = "\n" if self._done >= self._total else ""
        self._stream.write(f"\r{self._label} [{bar}] {self._done}/{self._total}{end}")
        self._stream.flush()


async def run_batch(
    todo: Sequence[Any],
    work: Callable[[Any], Any],
    out: Path,
    *,
    concurrency: int = 2,
    pacer: Pacer | None = None,
    label: str = "",
    stream: TextIO = sys.stderr,
) -> None:
    """`work` (async, returning a JSON-ready row with a "key") on each item, at most `concurrency` at once,
    paced; each row appended to `out` as it finishes (one line, flushed): what is on disk survives a stop."""
    gate = asyncio.Semaphore(max(1, concurrency))
    progress = Progress(len(todo), label, stream)
    written = asyncio.Lock()
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as file:

        async def one(item: Any) -> None:
            async with gate:
                if pacer is not None:
                    await pacer.wait()
                row = await work(item)
            async with written:
                file.write(json.dumps(row, ensure_ascii=False) + "\n")
                file.flush()
                progress.step()

        tasks = [asyncio.create_task(one(item)) for item in todo]
        try:
            await asyncio.gather(*tasks)
        finally:  # a failure stops the batch: nothing more is asked, what finished is on disk
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def answer_work(model: Completes, *, max_tokens: int = 400) -> Callable[[Job], Any]:
    """The generation step: one job's prompt to `model`, its answer with tokens, time and failed checks."""

    async def work(job: Job) -> dict[str, Any]:
        prompt = job.variant.prompt
        request = ChatRequest(messages=tuple(prompt.messages()), temperature=0.0, max_tokens=max_tokens)
        started = time.perf_counter()
        answer = (await model.complete(request)).text.strip()
        prompt_text = "\n".join(m.content for m in prompt.messages())
        markers = set(citation_map(prompt))
        checks = check_answer(answer, question=job.query, prompt_text=prompt_text, markers=markers)
        failed = [r.name for r in checks if not r.passed]
        return {
            "key": job.key,
            "snapshot": job.snapshot,
            "variant": job.variant.name,
            "strategy": job.variant.strategy,
            "query": job.query,
            "tokens": prompt.total_tokens,
            "prompt_hash": prompt_hash(prompt),
            "answer": answer,
            "ms": round((time.perf_counter() - started) * 1000, 1),
            "failed_checks": failed,
        }

    return work


JUDGE_INSTRUCTIONS = """You compare two answers, A and B, to the same message sent to a personal assistant.
For each criterion say which answer is better, or "tie" when neither is:
accuracy (what it states is right and answers what was asked), helpfulness, conciseness (no padding),
tone (fits the message), grounding (rests on what the assistant was told, invents nothing).
Reply with one JSON object and nothing else, e.g.
{"accuracy": "A", "helpfulness": "tie", "conciseness": "B", "tone": "tie", "grounding": "A"}."""
_VERDICT = re.compile(r"\{.*\}", re.S)


def placement(seed: int, key: str) -> bool:
    """Whether the variant's answer is shown first (as A) for this pair: seeded, the same on every run."""
    return random.Random(seed ^ zlib.crc32(key.encode("utf-8"))).random() < 0.5


def read_verdict(text: str, variant_first: bool) -> dict[str, str] | None:
    """Per criterion "variant", "full" or "tie" from the judge's reply; None when it holds no usable
    verdict for every criterion."""
    found = _VERDICT.search(text)
    try:
        raw = json.loads(found.group()) if found else None
    except ValueError:
        return None
    if not isinstance(raw, dict):
        return None
    out = {}
    for criterion in CRITERIA:
        said = str(raw.get(criterion, "")).strip().upper()
        if said not in ("A", "B", "TIE"):
            return None
        first, second = ("variant", "full") if variant_first else ("full", "variant")
        out[criterion] = "tie" if said == "TIE" else first if said == "A" else second
    return out


def judge_work(judge: Completes, answers: dict[str, dict[str, Any]], seed: int) -> Callable[[str], Any]:
    """The judging step for one variant's key: its answer against its snapshot's full answer, blind."""

    async def work(key: str) -> dict[str, Any]:
        row = answers[key]
        full = answers[f"{row['snapshot']}/full"]
        variant_first = placement(seed, key)
        a, b = (row["answer"], full["answer"]) if variant_first else (full["answer"], row["answer"])
        shown = f"Message: {row['query']}\n\nAnswer A:\n{a}\n\nAnswer B:\n{b}"
        request = ChatRequest(
            messages=(Message("system", JUDGE_INSTRUCTIONS), Message("user", shown)),
            temperature=0.0,
            max_tokens=120,
        )
        reply = (await judge.complete(request)).text
        verdict = read_verdict(reply, variant_first)
        return {"key": key, "variant": row["variant"], "strategy": row["strategy"], "verdict": verdict}

    return work


def summary(answers: Iterable[dict[str, Any]], judgments: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Per variant and per strategy: tokens, failed checks, and the judge's wins/losses/ties against full."""
    rows = list(answers)
    per_variant: dict[str, dict[str, Any]] = {}
    for row in rows:
        entry = per_variant.setdefault(
            row["variant"], {"strategy": row["strategy"], "answers": 0, "tokens": 0}
        )
        entry["answers"] += 1
        entry["tokens"] += row["tokens"]
        for check in row["failed_checks"]:
            entry.setdefault("failed_checks", {}).setdefault(check, 0)
            entry["failed_checks"][check] += 1
    for entry in per_variant.values():
        entry["tokens"] = round(entry["tokens"] / entry["answers"], 1)
    per_strategy: dict[str, dict[str, dict[str, int]]] = {}
    for judged in judgments:
        verdict = judged["verdict"]
        entry = per_variant.setdefault(judged["variant"], {"strategy": judged["strategy"]})
        if verdict is None:
            entry["no_verdict"] = entry.get("no_verdict", 0) + 1
            continue
        for criterion, winner in verdict.items():
            for table in (entry.setdefault("vs_full", {}), per_strategy.setdefault(judged["strategy"], {})):
                counts = table.setdefault(criterion, {"variant": 0, "full": 0, "tie": 0})
                counts[winner] += 1
    return {"variants": per_variant, "strategies": per_strategy}


async def run_ablation(
    snapshot_files: Sequence[Path],
    model: Completes,
    out: Path,
    *,
    strategies: Sequence[str] = STRATEGIES,
    judge: Completes | None = None,
    concurrency: int = 2,
    per_minute: float | None = None,
    seed: int = 7,
    stream: TextIO = sys.stderr,
) -> dict[str, Any]:
    """Generate what is not yet on disk, judge what is not yet judged, and return the summary."""
    every = jobs(snapshot_files, strategies)
    have = done_keys(out / ANSWERS)
    todo = [job for job in every if job.key not in have]
    pacer = Pacer(per_minute)
    await run_batch(
        todo,
        answer_work(model),
        out / ANSWERS,
        concurrency=concurrency,
        pacer=pacer,
        label="answers",
        stream=stream,
    )
    answers = done_keys(out / ANSWERS)
    judged = done_keys(out / JUDGMENTS)
    if judge is not None:
        pairs = [job.key for job in every if job.variant.name != "full" and job.key not in judged]
        work = judge_work(judge, answers, seed)
        await run_batch(
            pairs, work, out / JUDGMENTS, concurrency=concurrency, pacer=pacer, label="judging", stream=stream
        )
        judged = done_keys(out / JUDGMENTS)
    keys = {job.key for job in every}
    result = summary((answers[k] for k in keys if k in answers), (judged[k] for k in keys if k in judged))
    result["jobs"] = {"total": len(every), "generated_now": len(todo)}
    (out / "summary.json").write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    return result
