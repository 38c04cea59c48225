"""Synthesis built from the config: the book in the data dir, the filter, the generators and the judge."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.config_synthesis import SynthesisConfig
    from core.nlp import SpacyPipeline
    from core.providers.base import ChatProvider
    from core.providers.local import LocalModelProvider
    from knowledge.graph import KnowledgeGraph
    from knowledge.synthesis.book import SynthesisBook
    from knowledge.synthesis.engine import SynthesisEngine
    from memory.service import MemoryService


def open_synthesis_book(data_dir: Path, settings: SynthesisConfig, stack: ExitStack) -> SynthesisBook:
    """`synthesis.sqlite3` in the data dir, closed with `stack` (SQLite keeps sharing processes apart)."""
    from knowledge.synthesis.book import SYNTHESIS_FILE, SynthesisBook

    data_dir.mkdir(parents=True, exist_ok=True)
    book = SynthesisBook(
        data_dir / SYNTHESIS_FILE, halt_after=settings.halt_after, halt_rate=settings.halt_rate
    )
    stack.callback(book.close)
    return book


def build_synthesis(
    settings: SynthesisConfig,
    book: SynthesisBook,
    memory: MemoryService,
    nlp: SpacyPipeline,
    *,
    graph: Callable[[], KnowledgeGraph] | None,
    judge: ChatProvider | None,
    local: LocalModelProvider | None = None,
    seed: int | None = None,
) -> SynthesisEngine:
    """The engine over `memory` and the knowledge graph; `judge` (a capable model, or None) rates
    coherence and writes the cross-store generator's bridges; `local` (the embedded model) reads whether
    a bridge's words are in a sensible order."""
    from knowledge.synthesis.domains import DomainReader
    from knowledge.synthesis.engine import KNOWN, SynthesisEngine
    from knowledge.synthesis.fluency import FluencyReader
    from knowledge.synthesis.generators import CrossStore, structure_of
    from knowledge.synthesis.judge import BridgeWriter, CoherenceJudge
    from knowledge.synthesis.stages import FilterSettings, SynthesisFilter, has_clause
    from memory.synthesis_sources import SynthesisMemory

    sources = SynthesisMemory(memory, seed=seed)
    f = settings.filter
    thresholds = FilterSettings(
        distance_band=(f.distance_low, f.distance_high),
        known_ceiling=f.known_ceiling,
        duplicate_floor=f.duplicate_floor,
        min_rating=f.min_rating,
        composite_threshold=f.composite_threshold,
    )
    engine_filter = SynthesisFilter(
        sources.embed,
        DomainReader(sources.embed),
        has_clause(nlp),
        lambda vector, k: sources.nearest(vector, KNOWN, k),
        judge=CoherenceJudge(judge) if judge is not None else None,
        fluency=FluencyReader(local.reply_logprobs).margin if local is not None else None,
        settings=thresholds,
    )
    cross = None
    if judge is not None and settings.model_pairs > 0:
        cross = CrossStore(BridgeWriter(judge), max_pairs=settings.model_pairs)
    return SynthesisEngine(
        sources, book, engine_filter, structure=structure_of(nlp), graph=graph, cross_store=cross, seed=seed
    )


def session_end_synthesis(
    engine: SynthesisEngine, settings: SynthesisConfig
) -> Callable[[str], Coroutine[Any, Any, dict[str, Any]]]:
    """The session-end step's run: bounded by `session_end_seconds`; a halted book skips it, saying why."""

    async def synthesize(session_id: str) -> dict[str, Any]:
        from core.errors import UserInputError
        from knowledge.synthesis.engine import RunBudget
        from memory.shutdown.processor import StepSkipped

        budget = RunBudget(seconds=settings.session_end_seconds, candidates=settings.candidates_per_generator)
        try:
            report = await engine.run(budget)
        except UserInputError as halted:
            raise StepSkipped(str(halted)) from None
        return {k: report[k] for k in ("run_id", "seconds", "generated", "queued", "waiting", "notes")}

    return synthesize
