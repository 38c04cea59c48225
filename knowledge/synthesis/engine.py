"""One synthesis run: generators propose, the filter reads, the book keeps; and the audit's accept path.

A run is bounded by `RunBudget` (seconds and candidates per generator) and refuses while the book is
halted. With a judge, it first reads the candidates left waiting by runs without one. Its report says what
each generator proposed, what each stage passed and rejected, and what it could not do ("no judge
configured: N candidates wait unjudged", "cross-store needs a model").
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import UserInputError
from core.ports import SynthesisSources
from core.text import clip
from knowledge.graph import KnowledgeGraph
from knowledge.synthesis.book import Grade, StoredCandidate, SynthesisBook, candidate_of
from knowledge.synthesis.candidate import Candidate, Reading
from knowledge.synthesis.generators import KNOWLEDGE, PERSONAL, CrossStore, Pool, StructuralRetrieval
from knowledge.synthesis.graph_walk import GraphWalker, WalkSettings
from knowledge.synthesis.stages import EarlierBridges, StageCounts, SynthesisFilter

# What a bridge is compared with (external novelty) and what retrieval searches for analogies.
KNOWN = (
    "conversations",
    "facts",
    "summaries",
    "reflections",
    "reference_docs",
    "obsidian_notes",
    "wiki_knowledge",
)
SAMPLED = tuple(dict.fromkeys(PERSONAL + KNOWLEDGE))
MIN_POOL = 10  # fewer texts than this rarely hold two domains worth linking


@dataclass(frozen=True)
class RunBudget:
    """How much one run may do: wall-clock seconds, and candidates per generator."""

    seconds: float = 120.0
    candidates: int = 40
    seeds: int = 60
    sample_per_collection: int = 300


class SynthesisEngine:
    """Runs the generators and the filter over the user's memory; grades go through it too."""

    def __init__(
        self,
        sources: SynthesisSources,
        book: SynthesisBook,
        synthesis_filter: SynthesisFilter,
        *,
        structure: Callable[[str], list[str]],
        graph: Callable[[], KnowledgeGraph] | None = None,
        cross_store: CrossStore | None = None,
        walk: WalkSettings | None = None,
        clock: Callable[[], float] = time.monotonic,
        seed: int | None = None,
    ) -> None:
        self._sources = sources
        self.book = book
        self.filter = synthesis_filter
        self._structure = structure
        self._graph = graph
        self._cross_store = cross_store
        self._walk = walk or WalkSettings()
        self._clock = clock
        self._rng = random.Random(seed)

    @property
    def judged(self) -> bool:
        """Whether a judge model is configured (without one, candidates wait after stage 4)."""
        return self.filter.judged

    async def run(
        self,
        budget: RunBudget | None = None,
        *,
        progress: Callable[[str], None] | None = None,
        cancel: asyncio.Event | None = None,
    ) -> dict[str, Any]:
        """One run; the report (also kept in the book)."""
        budget = budget or RunBudget()
        say = progress or (lambda _line: None)
        halt = await asyncio.to_thread(self.book.halt)
        if halt.halted:
            raise UserInputError(f"synthesis is halted: {halt.reason} (`synthesis run --resume` resumes it)")
        started, run_id = self._clock(), "run-" + uuid.uuid4().hex[:10]
        await asyncio.to_thread(self.book.start_run, run_id)
        counts, generated, notes = StageCounts(), {}, []
        earlier = await asyncio.to_thread(self._earlier)

        def out_of_time() -> bool:
            return self._clock() - started > budget.seconds or bool(cancel and cancel.is_set())

        rejudged = await self._rejudge(counts, out_of_time)
        if rejudged:
            say(f"judged {rejudged} candidates left waiting by earlier runs")
        say("reading your memory")
        texts = await asyncio.to_thread(self._sources.texts, SAMPLED, budget.sample_per_collection)
        pool = await asyncio.to_thread(Pool.of, texts, self._sources.embed, self.filter.domains)
        if len(pool.texts) < MIN_POOL:
            notes.append(
                f"only {len(pool.texts)} memories to read: connections need more to draw on (chat, notes, "
                "documents)"
            )
        for name, propose in self._generators(pool, budget, notes):
            if out_of_time():
                notes.append(f"{name} not run: the run's time budget was spent")
                continue
            say(f"{name}: generating")
            began = self._clock()
            candidates = await propose()
            generated[name] = {"candidates": len(candidates), "seconds": round(self._clock() - began, 3)}
            readings = await self.filter.read(candidates, earlier)
            for reading in readings:
                counts.count(reading)
            await asyncio.to_thread(self.book.record, run_id, readings)
            kept = sum(r.outcome in ("passed", "waiting") for r in readings)
            say(f"{name}: {len(candidates)} candidates, {kept} kept")
        if counts.waiting and not self.judged:
            notes.append(
                f"no judge model is configured: {counts.waiting} candidates passed the offline stages and "
                "wait unjudged (connect a model in Settings, or set models.judge)"
            )
        elif counts.waiting:
            notes.append(
                f"the judge model gave no usable rating for {counts.waiting} candidates: they wait for the "
                "next run"
            )
        report = {
            "run_id": run_id,
            "seconds": round(self._clock() - started, 2),
            "pool": len(pool.texts),
            "generated": generated,
            "stages": counts.to_json(),
            "waiting": counts.waiting,
            "duplicates": counts.duplicates,
            "queued": counts.passed["composite"],
            "notes": notes,
        }
        await asyncio.to_thread(self.book.finish_run, run_id, report)
        return report

    def _generators(
        self, pool: Pool, budget: RunBudget, notes: list[str]
    ) -> list[tuple[str, Callable[[], Any]]]:
        rng = self._rng
        retrieval = StructuralRetrieval(
            self._structure, self._sources.embed, self.filter.known, self.filter.domains
        )

        async def by_retrieval() -> list[Candidate]:
            return await asyncio.to_thread(retrieval.propose, pool, rng, budget.seeds, budget.candidates)

        out: list[tuple[str, Callable[[], Any]]] = [("retrieval", by_retrieval)]
        if self._graph is not None:
            walker = GraphWalker(self._graph(), self.filter.domains.read, settings=self._walk)

            async def by_walks() -> list[Candidate]:
                return await asyncio.to_thread(walker.propose, rng, budget.candidates)

            out.append(("graph_walk", by_walks))
        if self._cross_store is not None:
            cross = self._cross_store

            async def by_model() -> list[Candidate]:
                return await cross.propose(pool, rng, budget.candidates)

            out.append(("cross_store", by_model))
        else:
            notes.append("cross_store not run: it needs a capable model to articulate bridges")
        return out

    def _earlier(self) -> EarlierBridges:
        earlier = EarlierBridges()
        stored = self.book.earlier()
        if stored:
            vectors = self._sources.embed([c.bridge for c in stored])
            for candidate, vector in zip(stored, np.asarray(vectors, dtype=np.float32), strict=True):
                earlier.add(candidate.id, candidate.generator, vector)
        return earlier

    async def _rejudge(self, counts: StageCounts, out_of_time: Callable[[], bool]) -> int:
        if not self.judged:
            return 0
        waiting = await asyncio.to_thread(self.book.candidates, "waiting", 20)
        done = 0
        for stored in waiting:
            if out_of_time():
                break
            reading = await self.filter.judge_again(candidate_of(stored), stored.stages, stored.domains)
            await asyncio.to_thread(self.book.rejudged, reading)
            counts.count(Reading(reading.candidate, reading.stages[len(stored.stages) :], reading.outcome))
            done += 1
        return done

    # --- the audit ----------------------------------------------------------------------------------------
    def grade(self, candidate_id: str, grade: Grade) -> StoredCandidate:
        """Record a grade; an accepted connection is kept in `synthesis_results`, citing its sources."""
        graded = self.book.grade(candidate_id, grade)
        if graded.status == "accepted":
            self.keep_accepted()
        return graded

    def keep_accepted(self) -> int:
        """Keep in memory every accepted connection not kept yet; how many were kept."""
        pending = self.book.unkept()
        for candidate in pending:
            self._sources.keep(candidate.id, insight_text(candidate), insight_metadata(candidate))
            self.book.mark_kept(candidate.id)
        return len(pending)


def insight_text(candidate: StoredCandidate) -> str:
    """What a later turn recalls: the bridge, then the two ideas it links."""
    left, right = (clip(end.text, 160, one_line=True) for end in (candidate.left, candidate.right))
    return f"{candidate.bridge} (Links: {left} / {right})"


def insight_metadata(candidate: StoredCandidate) -> dict[str, Any]:
    """The record's metadata: its score, convergence, grade and the ids of the memories it links (the
    citations a later answer gives)."""
    sources: Sequence[str] = [e.source_id for e in (candidate.left, candidate.right) if e.source_id]
    return {
        "score": float(candidate.composite or 0.0),
        "convergence": float(candidate.convergence),
        "grade": candidate.grade,
        "source_ids": json.dumps(list(sources)),
        "created_at": time.time(),
    }
