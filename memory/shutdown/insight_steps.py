"""Session-end steps 5, 6, 8 and 9: procedural skills, proposals, open threads, implementation tracking.

All offline heuristics over the session's turns, written with content-derived ids so a re-run replaces
instead of duplicating. Nothing is closed or completed automatically: a thread is marked resolved only when
the same question got a confident answer later, and a proposal is only ever "likely implemented".
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.pipeline.short_term import is_question, leaves_question_open
from core.ports import TurnRecord
from memory.bm25 import tokenize
from memory.collections import make_id
from memory.dedup import DedupScanner
from memory.review import ReviewQueue
from memory.shutdown.processor import StepContext, StepSkipped
from memory.vector_store import Record, VectorStore

Add = Callable[[str, Sequence[Record]], Any]
Get = Callable[[str], Sequence[Record]]  # every record of a collection
Restamp = Callable[[str, Mapping[str, Mapping[str, Any]]], Any]

_HOW_TO = re.compile(
    r"^\s*(how (do|can|should|would) (i|we|you)|what('s| is) the (best )?way to|steps to)\b", re.I
)
_STEP_LINE = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+(.+)$", re.M)
_PROPOSAL = re.compile(
    r"\b(it would be (nice|great|cool|useful) if you|i wish you (could|would)|you should be able to|"
    r"could you (add|support|learn)|feature request|can you start (to )?)\b",
    re.I,
)


def _provenance(turn: TurnRecord, ctx: StepContext) -> dict[str, Any]:
    return {"created_at": turn.created_at, "session_id": ctx.session_id, "source": "shutdown"}


def _sentence_with(text: str, pattern: re.Pattern[str]) -> str:
    for sentence in re.split(r"(?<=[.!?])\s+", " ".join(text.split())):
        if pattern.search(sentence):
            return sentence[:300]
    return text[:300]


class ProceduralSkillsStep:
    """A how-to question answered with steps becomes a skill: trigger = the question, action = the steps.

    With `learn` (the skills library's), each becomes a skill folder the user can read, edit and remove
    (memory/skills.py), which indexes it; without, a record of `procedural_skills` only."""

    name = "procedural_skills"
    needs_llm = False

    def __init__(self, add: Add, learn: Callable[[str, Sequence[str]], Any] | None = None) -> None:
        self._add = add
        self._learn = learn

    async def run(self, ctx: StepContext) -> dict[str, Any]:
        if self._learn is not None:
            return self._learned(ctx)
        records = []
        for turn in ctx.turns:
            steps = _STEP_LINE.findall(turn.assistant)
            if turn.status != "complete" or not _HOW_TO.search(turn.user) or len(steps) < 2:
                continue
            trigger = _sentence_with(turn.user, _HOW_TO)
            action = " -> ".join(step.strip() for step in steps[:8])[:600]
            meta = _provenance(turn, ctx) | {
                "trigger": trigger,
                "action_pattern": action,
                "category": "how-to",
                "confidence": 0.6,
            }
            records.append(Record(make_id("procedural_skills", trigger), f"{trigger}\n{action}", meta))
        unique = list({record.id: record for record in records}.values())  # the same question twice
        if unique:
            self._add("procedural_skills", unique)
        return {"skills": len(unique)}

    def _learned(self, ctx: StepContext) -> dict[str, Any]:
        assert self._learn is not None
        learned = 0
        for turn in ctx.turns:
            steps = [step.strip() for step in _STEP_LINE.findall(turn.assistant)][:8]
            if turn.status == "complete" and _HOW_TO.search(turn.user) and len(steps) >= 2:
                learned += self._learn(_sentence_with(turn.user, _HOW_TO), steps) is not None
        return {"skills": learned}


class ProposalsStep:
    """What the user asked Daemon to do differently ("it would be nice if you…") awaits their decision."""

    name = "proposals"
    needs_llm = False

    def __init__(self, add: Add) -> None:
        self._add = add

    async def run(self, ctx: StepContext) -> dict[str, Any]:
        records = []
        for turn in ctx.turns:
            if not _PROPOSAL.search(turn.user):
                continue
            text = _sentence_with(turn.user, _PROPOSAL)
            meta = _provenance(turn, ctx) | {
                "status": "proposed",
                "kind": "feature",
                "reasoning": "asked for by the user",
            }
            records.append(Record(make_id("proposals", text), text, meta))
        unique = list({record.id: record for record in records}.values())
        if unique:
            self._add("proposals", unique)
        return {"proposals": len(unique)}


class OpenThreadsStep:
    """Questions a reply left open become threads; an open thread asked again and answered is resolved."""

    name = "open_threads"
    needs_llm = False

    def __init__(self, add: Add, get: Get, restamp: Restamp) -> None:
        self._add, self._get, self._restamp = add, get, restamp

    async def run(self, ctx: StepContext) -> dict[str, Any]:
        opened: dict[str, Record] = {}
        answered: dict[str, TurnRecord] = {}
        for turn in ctx.turns:
            if not is_question(turn.user):
                continue
            key = thread_id(turn.user)
            if leaves_question_open(turn.assistant, turn.status):
                meta = _provenance(turn, ctx) | {"status": "open", "kind": "question"}
                opened[key] = Record(key, turn.user.strip()[:500], meta)
            else:
                answered[key] = turn
                opened.pop(key, None)
        if opened:
            self._add("threads", list(opened.values()))
        resolved = {
            record.id: {"status": "resolved", "resolved_at": answered[record.id].created_at}
            for record in self._get("threads")
            if record.metadata.get("status") == "open" and record.id in answered
        }
        if resolved:
            self._restamp("threads", resolved)
        return {"opened": len(opened), "resolved": len(resolved)}


def thread_id(question: str) -> str:
    return make_id("threads", " ".join(tokenize(question, stem=True)))


class ImplementationTrackingStep:
    """Proposals whose words show up in a later commit message are marked "likely implemented" (never
    done: the user decides). Needs the commit history (`git_commits`)."""

    name = "implementation_tracking"
    needs_llm = False

    def __init__(self, get: Get, restamp: Restamp, *, min_overlap: float = 0.6) -> None:
        self._get, self._restamp, self._min_overlap = get, restamp, min_overlap

    async def run(self, ctx: StepContext) -> dict[str, Any]:
        commits = self._get("git_commits")
        if not commits:
            raise StepSkipped("no commit history ingested")
        proposals = [p for p in self._get("proposals") if p.metadata.get("status") == "proposed"]
        commit_words = [set(tokenize(c.text)) for c in commits]
        likely: dict[str, Mapping[str, Any]] = {}
        for proposal in proposals:
            words = set(tokenize(proposal.text))
            best = max((len(words & cw) / len(words) for cw in commit_words), default=0.0) if words else 0.0
            if best >= self._min_overlap:
                likely[proposal.id] = {"status": "likely_implemented", "outcome": {"evidence_overlap": best}}
        if likely:
            self._restamp("proposals", likely)
        return {"proposals_checked": len(proposals), "likely_implemented": len(likely)}


class DedupScanStep:
    """Cross-collection dedup scan: near-duplicates and contradictions go to the review queue. Nothing is
    hidden or deleted here; the user decides (`review` in the CLI), and approvals hide, never delete."""

    name = "dedup_scan"
    needs_llm = False

    def __init__(self, scanner: DedupScanner, queue: ReviewQueue, store: VectorStore) -> None:
        self._scanner, self._queue, self._store = scanner, queue, store

    async def run(self, ctx: StepContext) -> dict[str, Any]:
        items = await asyncio.to_thread(self._scanner.scan_store, self._store)
        proposed = await asyncio.to_thread(self._queue.propose, items)
        kinds = Counter(item.kind for item in items)
        found = {"duplicates": kinds["duplicate"], "contradictions": kinds["contradiction"]}
        return {"proposed": proposed, **found}
