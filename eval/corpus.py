"""`eval corpus`: seed queries, at least three per intent, each checked against the behaviour it should get.

The corpus (`eval/corpus/seed_queries.yaml`) tells a few ordinary statements into a fresh data dir, then asks
each query through the real orchestrator (`remember=False`: no query becomes evidence for the next) and
checks, without an LLM:

- `intent` and `tone`: how the context pipeline reads the query (`core.pipeline.analyzer`);
- `sections`: each is in the prompt the query assembles (`Orchestrator.preview`);
- `must_not_include`: none of these (case-insensitive) is in the reply; `max_words` bounds it;
- the objective checks of `eval/objective_checks.py` (markup leak, thinking leak, filler, …) on the reply.

The report counts, per intent and per check, the queries that pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from core.events import Done, RunError
from core.prompt.builder import citation_map
from eval.objective_checks import check_answer

if TYPE_CHECKING:
    from core.orchestrator import Orchestrator
    from core.pipeline.analyzer import Analysis

CORPUS = Path(__file__).resolve().parent / "corpus" / "seed_queries.yaml"
SEED_REPLY = "Noted."


@dataclass(frozen=True)
class Query:
    """One seed query and the behaviour it should get."""

    text: str
    intent: str
    tone: str
    sections: tuple[str, ...]
    must_not_include: tuple[str, ...]
    max_words: int


def load_corpus(path: Path = CORPUS) -> tuple[list[str], list[Query]]:
    """The statements told first, and the queries."""
    raw: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    queries = [
        Query(
            str(q["text"]),
            str(q["intent"]),
            str(q["tone"]),
            tuple(q.get("sections") or ()),
            tuple(q.get("must_not_include") or ()),
            int(q["max_words"]),
        )
        for q in raw["queries"]
    ]
    return [str(s) for s in raw.get("seed") or ()], queries


def failures(
    query: Query, analysis: Analysis, sections: Sequence[str], reply: str, prompt_text: str, markers: set[str]
) -> list[str]:
    """The names of the expectations `reply` (and the query's reading and prompt) do not meet."""
    failed = []
    if analysis.intent != query.intent:
        failed.append(f"intent ({analysis.intent})")
    if analysis.tone != query.tone:
        failed.append(f"tone ({analysis.tone})")
    failed += [f"section {key} missing" for key in query.sections if key not in sections]
    lowered = reply.lower()
    failed += [f"said {word!r}" for word in query.must_not_include if word.lower() in lowered]
    if len(reply.split()) > query.max_words:
        failed.append(f"longer than {query.max_words} words")
    checks = check_answer(reply, question=query.text, prompt_text=prompt_text, markers=markers)
    return failed + [f"check {r.name}" for r in checks if not r.passed]


async def run_corpus(
    orchestrator: Orchestrator,
    analyze: Callable[[str], Analysis],
    seed: Sequence[str],
    queries: Sequence[Query],
    progress: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Tell `seed`, ask each query, and report what met its expectations."""
    session = orchestrator.new_session()
    for statement in seed:
        await orchestrator.record_exchange(session, statement, SEED_REPLY, model="import:corpus")
    rows = []
    for n, query in enumerate(queries, 1):
        asked = orchestrator.new_session()
        prompt = await orchestrator.preview(query.text, session_id=asked)
        started = time.perf_counter()
        reply = ""
        async for event in orchestrator.run_turn(query.text, session_id=asked, remember=False):
            if isinstance(event, Done):
                reply = event.answer
            elif isinstance(event, RunError):
                reply = ""
        ms = (time.perf_counter() - started) * 1000
        prompt_text = "\n".join(m.content for m in prompt.messages())
        keys = [s.key for s in prompt.sections]
        failed = failures(query, analyze(query.text), keys, reply, prompt_text, set(citation_map(prompt)))
        rows.append(
            {
                "query": query.text,
                "intent": query.intent,
                "reply": reply,
                "ms": round(ms, 1),
                "failed": failed,
            }
        )
        progress(f"{n}/{len(queries)} queries")
    return report(rows)


def report(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Queries that met every expectation, per intent; how often each kind of expectation failed."""
    intents: dict[str, dict[str, int]] = {}
    kinds: dict[str, int] = {}
    for row in rows:
        entry = intents.setdefault(row["intent"], {"n": 0, "passed": 0})
        entry["n"] += 1
        entry["passed"] += not row["failed"]
        for failure in row["failed"]:
            kind = failure.split(" (")[0].split(" '")[0]
            kinds[kind] = kinds.get(kind, 0) + 1
    passed = sum(not row["failed"] for row in rows)
    return {"n": len(rows), "passed": passed, "intents": intents, "failed_by_kind": kinds, "rows": list(rows)}


def corpus_headline(result: dict[str, Any]) -> str:
    """The human-readable summary of `eval corpus`."""
    lines = [f"{result['passed']} of {result['n']} seed queries met every expectation"]
    lines += [f"  {intent:<22} {row['passed']}/{row['n']}" for intent, row in result["intents"].items()]
    if result["failed_by_kind"]:
        kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(result["failed_by_kind"].items()))
        lines.append(f"failed: {kinds}")
    lines += [f"- {row['query']}: {'; '.join(row['failed'])}" for row in result["rows"] if row["failed"]]
    return "\n".join(lines)
