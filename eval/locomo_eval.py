"""`eval locomo`: LoCoMo answered end to end — told through the real write path, asked through the real
orchestrator — beside `bench answers` (the extractive answerer over the memory service alone) in one run.

Daemon is one person's assistant and a LoCoMo conversation is between two people, so each conversation is
told twice, once as each speaker's: in speaker A's data dir A's lines are the user's messages and B's the
replies between them (and the other way round in B's). Each view opens with the user saying their name
("My name is Caroline."). Every exchange goes through `Orchestrator.record_exchange` — journal, memory
index, fact learning, graph — dated by the session's date-time (the journal's clock is the benchmark's).
A question is asked in the view of the first speaker it names (A when it names neither), in a new session,
through `Orchestrator.run_turn` with the configured default model (offline: the embedded model with its
extractive recall) and `remember=False`, so one question's turn never becomes the evidence of the next.
Before it, `Orchestrator.preview` gives the prompt that turn assembles: the share of the question's
evidence turns among its retrieved memories (retrieval recall) and the tokens of the sections drawn from
memory (memory tokens per turn).

Scores per the LoCoMo paper: token F1 and contains-gold (`answers_bench`), overall and per category
(categories 1-4; 5, the adversarial one, has no gold answer). Leading lines of a session spoken by the other
speaker open the first reply of that session's view.
"""

from __future__ import annotations

import asyncio
import functools
import random
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from core.clocks import SettableClock
from core.events import Done, RunError
from core.metrics import percentiles
from core.prompt.assembly import AssembledPrompt
from eval.benchmarks.answers_bench import answer_extractively, contains_gold, token_f1
from eval.benchmarks.locomo import CATEGORY_NAMES, LocomoConversation, LocomoQuestion, TurnUnit, load_locomo
from eval.benchmarks.retrieval_bench import ingest
from eval.variants import source_kind

if TYPE_CHECKING:
    from core.generation.extractive import ExtractiveAnswerer
    from core.orchestrator import Orchestrator
    from core.prompt.builder import PromptBuilder
    from eval.judge import LocomoJudge
    from memory.service import MemoryService

SOURCE = "import:locomo"
MEMORY_SOURCES = frozenset({"memory", "facts", "knowledge"})  # `variants.source_kind` of a memory section
ASKED_AFTER_S = 86_400.0  # questions are asked a day after the conversation's last session


class Running(Protocol):
    """What a run needs of the app's services (`ui.shared.services.Services` is one): its orchestrator,
    and closing it."""

    @property
    def orchestrator(self) -> Orchestrator: ...

    def close(self) -> None: ...


MakeServices = Callable[[Path, Callable[[], float]], Running]
# (conversation, its questions, a folder) -> the `bench answers` method's (span, reply) to each question
Baseline = Callable[[LocomoConversation, Sequence[LocomoQuestion], Path], list[tuple[str, str]]]


@dataclass
class Exchange:
    """One user message and the reply to it, with the LoCoMo turns they hold and when they were said."""

    user: str
    assistant: str
    uids: list[str]
    at: float


@dataclass
class Asked:
    """One question's outcome."""

    question: LocomoQuestion
    speaker: str
    answer: str
    ms: float
    recall: float
    memory_tokens: int
    failed: str = ""
    span: str = ""  # the answer proper, when memory answered (the extractive evidence's span)
    judged: bool | None = None  # the judge's verdict (None: no judge, or no usable label)
    baseline: tuple[str, str] = ("", "")  # `bench answers`' extractive span and reply


@dataclass
class View:
    """A conversation told as one speaker's: its LoCoMo turns' journal ids, and when it was last spoken."""

    turn_of: dict[str, str] = field(default_factory=dict)  # LoCoMo dialog id -> journal turn id
    last_at: float = 0.0


def body(unit: TurnUnit) -> str:
    """A unit's words without its "Speaker: " prefix."""
    return unit.text.removeprefix(f"{unit.speaker}: ")


def exchanges(conv: LocomoConversation, speaker: str) -> Iterator[list[Exchange]]:
    """Each session's exchanges as `speaker`'s: their lines are messages, the other speaker's the replies."""
    sessions: dict[int, list[TurnUnit]] = {}
    for unit in conv.units:
        sessions.setdefault(unit.session, []).append(unit)
    for units in sessions.values():
        out: list[Exchange] = []
        leading: list[TurnUnit] = []
        for unit in units:
            at = unit.timestamp.timestamp() + unit.position
            if unit.speaker == speaker:
                if out and not out[-1].assistant:  # two messages in a row: one message
                    out[-1].user += "\n" + body(unit)
                    out[-1].uids.append(unit.uid)
                else:
                    out.append(Exchange(body(unit), "", [unit.uid], at))
            elif out:
                out[-1].assistant = "\n".join(filter(None, (out[-1].assistant, body(unit))))
                out[-1].uids.append(unit.uid)
            else:
                leading.append(unit)
        if out and leading:
            first = out[0]
            first.assistant = "\n".join(filter(None, (*map(body, leading), first.assistant)))
            first.uids += [u.uid for u in leading]
        yield out


async def tell(
    orchestrator: Orchestrator, conv: LocomoConversation, speaker: str, clock: SettableClock
) -> View:
    """The conversation written as `speaker`'s, exchange by exchange, through the real write path."""
    view = View()
    start = min(u.timestamp.timestamp() for u in conv.units)
    clock.now = start - 60
    opening = orchestrator.new_session()
    await orchestrator.record_exchange(
        opening, f"My name is {speaker}.", f"Nice to meet you, {speaker}.", model=SOURCE
    )
    for session in exchanges(conv, speaker):
        if not session:
            continue
        clock.now = session[0].at
        session_id = orchestrator.new_session()
        for exchange in session:
            clock.now = exchange.at
            assistant = exchange.assistant or "…"
            turn = await orchestrator.record_exchange(session_id, exchange.user, assistant, model=SOURCE)
            view.turn_of.update(dict.fromkeys(exchange.uids, turn.turn_id))
            view.last_at = max(view.last_at, exchange.at)
    return view


def speaker_asked(question: str, speakers: Sequence[str]) -> str:
    """The speaker a question is about: the first one it names, else the first speaker."""
    found = [(at, s) for s in speakers if (at := _named_at(question, s)) is not None]
    return min(found)[1] if found else speakers[0]


def _named_at(question: str, speaker: str) -> int | None:
    """Where `question` names `speaker`: by name, or by a short form of it ("Mel" for Melanie: a capitalised
    word of three letters or more that the name begins with); None when it does not."""
    if m := re.search(rf"\b{re.escape(speaker)}\b", question, re.I):
        return m.start()
    m = re.search(rf"\b{re.escape(speaker[:3])}[a-z]*\b", question)
    return m.start() if m and speaker.startswith(m.group()) else None


async def ask(
    orchestrator: Orchestrator,
    view: View,
    question: LocomoQuestion,
    speaker: str,
    clock: SettableClock,
    judge: LocomoJudge | None = None,
) -> Asked:
    """One question through the real read path (a new session, nothing remembered)."""
    clock.now = view.last_at + ASKED_AFTER_S
    session_id = orchestrator.new_session()
    prompt = await orchestrator.preview(question.question, session_id=session_id)
    started = time.perf_counter()
    answer, failed, span = "", "", ""
    async for event in orchestrator.run_turn(question.question, session_id=session_id, remember=False):
        if isinstance(event, Done):
            answer = event.answer
            evidence = (event.extra or {}).get("evidence") or {}
            span = str(evidence.get("span") or "")
        elif isinstance(event, RunError):
            failed = event.message
    ms = (time.perf_counter() - started) * 1000
    recall, tokens = retrieval_recall(prompt, view, question), memory_tokens(prompt)
    judged = await judge.correct(question.question, question.answer, answer) if judge is not None else None
    return Asked(question, speaker, answer, ms, recall, tokens, failed, span, judged)


def retrieval_recall(prompt: AssembledPrompt, view: View, question: LocomoQuestion) -> float:
    """The share of the question's evidence turns whose journal turn is among the prompt's items."""
    ids = {item.id for section in prompt.sections for item in section.items if item.id}
    wanted = {view.turn_of[uid] for uid in question.evidence if uid in view.turn_of}
    if not wanted:
        return 0.0
    return sum(any(turn in item for item in ids) for turn in wanted) / len(wanted)


def memory_tokens(prompt: AssembledPrompt) -> int:
    """Tokens of the prompt's sections drawn from memory (the stores, the facts, the graph)."""
    return sum(s.tokens for s in prompt.sections if source_kind(s.key) in MEMORY_SOURCES)


def sample_questions(
    conversations: Sequence[LocomoConversation], size: int, seed: int
) -> list[tuple[LocomoConversation, LocomoQuestion]]:
    """A fixed-seed sample of the conversations' questions (all of them when `size` is 0 or more)."""
    pool = [(c, q) for c in conversations for q in c.questions]
    if size <= 0 or size >= len(pool):
        return pool
    return random.Random(seed).sample(pool, size)


def run_locomo_eval(
    dataset: Path,
    make_services: MakeServices,
    baseline: Baseline | None = None,
    judge: LocomoJudge | None = None,
    *,
    conversations: int = 0,
    sample: int = 0,
    seed: int = 19,
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Tell the first `conversations` (0: all) of `dataset`, ask `sample` of their questions (0: all)."""
    chosen = load_locomo(dataset)
    chosen = chosen[:conversations] if conversations > 0 else chosen
    questions = sample_questions(chosen, sample, seed)
    asked: list[Asked] = []
    model = ""
    with tempfile.TemporaryDirectory(prefix="daemon-eval-locomo-") as folder:
        for conv in chosen:
            mine = [q for c, q in questions if c is conv]
            before = len(asked)
            by_speaker = {
                s: [q for q in mine if speaker_asked(q.question, conv.speakers) == s] for s in conv.speakers
            }
            for speaker, wanted in by_speaker.items():
                if not wanted:
                    continue
                clock = SettableClock()
                services = make_services(Path(folder) / conv.sample_id / speaker, clock)
                try:
                    orchestrator = services.orchestrator
                    model = orchestrator.default_model
                    progress(f"{conv.sample_id}: telling it as {speaker}'s ({len(conv.units)} turns)")
                    told = _one_view(orchestrator, conv, speaker, wanted, clock, judge, progress)
                    asked += asyncio.run(told)
                finally:
                    services.close()
            if baseline is not None and mine:
                progress(f"{conv.sample_id}: the bench-answers method on the same questions")
                found = baseline(conv, mine, Path(folder) / conv.sample_id / "bench")
                answers = dict(zip(mine, found, strict=True))
                for row in asked[before:]:
                    row.baseline = answers[row.question]
    result = report(asked, model=model, seed=seed, conversations=len(chosen))
    if judge is not None:
        result["judge"] = judged(asked)
    return result


async def _one_view(
    orchestrator: Orchestrator,
    conv: LocomoConversation,
    speaker: str,
    wanted: Sequence[LocomoQuestion],
    clock: SettableClock,
    judge: LocomoJudge | None,
    progress: Callable[[str], None],
) -> list[Asked]:
    """Tell the conversation as `speaker`'s, then ask it `wanted` (one event loop for both)."""
    view = await tell(orchestrator, conv, speaker, clock)
    out = []
    for n, question in enumerate(wanted, 1):
        out.append(await ask(orchestrator, view, question, speaker, clock, judge))
        progress(f"{conv.sample_id}/{speaker}: {n}/{len(wanted)} questions")
    return out


def _block(rows: Sequence[Asked]) -> dict[str, Any]:
    return _scores([(r.answer, r.question.answer) for r in rows])


def judged(asked: Sequence[Asked]) -> dict[str, Any]:
    """The judge's accuracy, overall and per category (answers with no usable label counted apart)."""

    def block(rows: Sequence[Asked]) -> dict[str, Any]:
        labelled = [r for r in rows if r.judged is not None]
        right = sum(bool(r.judged) for r in labelled)
        accuracy = round(right / len(labelled), 4) if labelled else 0.0
        return {
            "n": len(rows),
            "correct": right,
            "accuracy": accuracy,
            "no_verdict": len(rows) - len(labelled),
        }

    return per_category(asked, block)


def _proper(rows: Sequence[Asked]) -> dict[str, Any]:
    return _scores([(r.span or r.answer, r.question.answer) for r in rows])


def _scored(rows: Sequence[Asked], pick: int) -> dict[str, Any]:
    return _scores([(r.baseline[pick], r.question.answer) for r in rows])


def per_category(
    asked: Sequence[Asked], score: Callable[[Sequence[Asked]], dict[str, Any]]
) -> dict[str, Any]:
    """`score` over every question ("overall") and over each category present ("categories")."""
    categories = {
        name: score(rows)
        for cat, name in CATEGORY_NAMES.items()
        if (rows := [r for r in asked if r.question.category == cat])
    }
    return {"overall": score(asked), "categories": categories}


def _scores(pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """{"n", "f1", "contains_gold"} over (answer, gold) pairs."""
    n = len(pairs)
    if not n:
        return {"n": 0, "f1": 0.0, "contains_gold": 0.0}
    return {
        "n": n,
        "f1": round(statistics.fmean(token_f1(a, g) for a, g in pairs), 4),
        "contains_gold": round(sum(contains_gold(a, g) for a, g in pairs) / n, 4),
    }


def bench_answers_baseline(
    make_service: Callable[[Path], MemoryService], answerer: ExtractiveAnswerer, prompt: PromptBuilder
) -> Baseline:
    """`bench answers`' method as a `Baseline`: the conversation in a memory service of its own, searched by
    the normal pipeline, answered extractively from every speaker's lines."""

    def answers(
        conv: LocomoConversation, questions: Sequence[LocomoQuestion], folder: Path
    ) -> list[tuple[str, str]]:
        service = make_service(folder)
        try:
            ingest(service, conv)

            async def each() -> list[tuple[str, str]]:
                out = []
                for question in questions:
                    reply, _ = await answer_extractively(service, conv, question, answerer, prompt)
                    out.append((reply.evidence.answer if reply.evidence else "", reply.text))
                return out

            return asyncio.run(each())
        finally:
            service.close()

    return answers


def report(asked: Sequence[Asked], *, model: str, seed: int, conversations: int) -> dict[str, Any]:
    """The figures of a run: overall and per category, retrieval recall, memory tokens, latency."""
    return {
        "model": model,
        "seed": seed,
        "conversations": conversations,
        **per_category(asked, _block),
        # the answer proper: the span memory answered with ("cello"), else the whole reply
        "answer_proper": per_category(asked, _proper),
        "retrieval_recall": round(statistics.fmean(r.recall for r in asked), 4) if asked else 0.0,
        "memory_tokens_per_turn": round(statistics.fmean(r.memory_tokens for r in asked), 1)
        if asked
        else 0.0,
        "latency_ms": percentiles([r.ms for r in asked], 1),
        "failed": sum(bool(r.failed) for r in asked),
        "bench_answers": {
            which: per_category(asked, functools.partial(_scored, pick=pick))
            for which, pick in (("span", 0), ("reply", 1))
        },
        "rows": [
            {
                "question": r.question.question,
                "gold": r.question.answer,
                "category": CATEGORY_NAMES[r.question.category],
                "speaker": r.speaker,
                "answer": r.answer,
                "span": r.span,
                "ms": round(r.ms, 1),
                "recall": r.recall,
                "judged": r.judged,
            }
            for r in asked
        ],
    }


def locomo_headline(result: dict[str, Any]) -> str:
    """The human-readable table of `eval locomo`: per category, end to end beside `bench answers`' method."""
    bench = result["bench_answers"]
    lines = [
        f"{result['overall']['n']} LoCoMo questions from {result['conversations']} conversation(s), "
        f"answered by {result['model']} through the orchestrator (seed {result['seed']})",
        "F1 / contains-gold",
        f"{'':<17}{'end to end: reply':>19}{'answer proper':>19}{'bench answers: span':>21}{'reply':>15}",
    ]
    proper = result["answer_proper"]
    rows = [
        ("overall", result["overall"], proper["overall"], bench["span"]["overall"], bench["reply"]["overall"])
    ]
    rows += [
        (
            name,
            block,
            proper["categories"][name],
            bench["span"]["categories"][name],
            bench["reply"]["categories"][name],
        )
        for name, block in result["categories"].items()
    ]
    for name, *blocks in rows:
        cells = "".join(f"{b['f1']:>11.3f} / {b['contains_gold']:.3f}" for b in blocks)
        lines.append(f"{name + ' (' + str(blocks[0]['n']) + ')':<17}{cells}")
    if "judge" in result:
        verdict = result["judge"]["overall"]
        lines.append(
            f"judge ({result['judge']['model']}): {verdict['correct']} of "
            f"{verdict['n'] - verdict['no_verdict']} correct = {verdict['accuracy']:.3f} "
            f"(no verdict on {verdict['no_verdict']})"
        )
    latency = result["latency_ms"]
    lines.append(
        f"retrieval recall {result['retrieval_recall']:.3f}; memory tokens per turn "
        f"{result['memory_tokens_per_turn']:.0f}; turn latency p50 {latency['p50']:.0f} ms, p95 "
        f"{latency['p95']:.0f} ms; failed turns {result['failed']}"
    )
    return "\n".join(lines)
