"""A synthesis run end to end on the generated corpus: real Chroma, MiniLM and spaCy, a scripted judge."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app.builders.memory import build_memory_service
from app.builders.synthesis import build_synthesis
from core.config import load_config
from core.config_synthesis import SynthesisConfig
from core.errors import UserInputError
from core.nlp import SpacyPipeline
from eval.benchmarks.synthesis_bench import corpus_graph, store_corpus
from eval.benchmarks.synthesis_corpus import build_corpus
from knowledge.synthesis.book import Grade, SynthesisBook
from knowledge.synthesis.engine import RunBudget
from memory.embeddings import MiniLMEmbedder
from tests.unit.knowledge.synthesis_helpers import rule_provider

pytestmark = pytest.mark.slow

BRIDGE = "Both {a} and {b} grow through small regular care, so a lesson from one may carry over to the other."


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("synthesis")
    config = load_config(overrides={"data_dir": str(folder)})
    memory = build_memory_service(config, MiniLMEmbedder(threads=1), folder / "chroma")
    corpus = build_corpus(7)
    store_corpus(memory, corpus)
    yield memory, corpus
    memory.close()


def engine_for(world, tmp_path: Path, judge, **settings):
    memory, corpus = world
    graph = corpus_graph(corpus)
    config = SynthesisConfig(**settings)
    book = SynthesisBook(
        tmp_path / "synthesis.sqlite3", halt_after=config.halt_after, halt_rate=config.halt_rate
    )
    engine = build_synthesis(config, book, memory, SpacyPipeline(), graph=lambda: graph, judge=judge, seed=3)
    return engine, book


def test_a_judged_run_fills_the_audit_queue_with_per_stage_figures(world, tmp_path: Path) -> None:
    provider = rule_provider("STRONG", bridge=BRIDGE)
    engine, book = engine_for(world, tmp_path, provider)
    report = asyncio.run(engine.run(RunBudget(seconds=300, candidates=20, seeds=30)))
    assert set(report["generated"]) == {"retrieval", "graph_walk", "cross_store"}
    assert all(g["candidates"] > 0 for g in report["generated"].values())
    stages = {s["name"]: s for s in report["stages"]}
    assert stages["text_sanity"]["passed"] + stages["text_sanity"]["rejected"] == sum(
        g["candidates"] for g in report["generated"].values()
    )
    assert stages["coherence"]["passed"] > 0 and report["queued"] == stages["composite"]["passed"] > 0
    assert book.stats()["by_status"]["queued"] == report["queued"]
    judged = [r for r in provider.requests if "judge" in r.messages[0].content]
    assert len(judged) == stages["coherence"]["passed"] + stages["coherence"]["rejected"]
    assert book.next_for_audit() is not None
    book.close()


def test_an_accepted_connection_is_kept_in_memory_citing_its_sources(world, tmp_path: Path) -> None:
    memory, _ = world
    engine, book = engine_for(world, tmp_path, rule_provider("STRONG", bridge=BRIDGE))
    asyncio.run(engine.run(RunBudget(seconds=300, candidates=10, seeds=20)))
    shown = book.next_for_audit()
    assert shown is not None
    graded = engine.grade(shown.id, Grade(True, True, True, 5))
    assert graded.status == "accepted" and graded.rating == 5
    kept = memory.store.get("synthesis_results", ids=[shown.id])
    assert len(kept) == 1 and shown.bridge in kept[0].text
    sources = json.loads(kept[0].metadata["source_ids"])
    assert sources and set(sources) <= {shown.left.source_id, shown.right.source_id}
    assert kept[0].metadata["grade"] == "5/5"
    book.close()


def test_without_a_judge_candidates_wait_and_the_report_says_so(world, tmp_path: Path) -> None:
    engine, book = engine_for(world, tmp_path, None)
    report = asyncio.run(engine.run(RunBudget(seconds=300, candidates=10, seeds=20)))
    assert report["waiting"] > 0 and report["queued"] == 0
    assert any("no judge model" in note for note in report["notes"])
    assert any("cross_store not run" in note for note in report["notes"])
    assert book.next_for_audit() is None
    book.close()
    # a later run with a judge reads the waiting ones first
    again, again_book = engine_for(world, tmp_path, rule_provider("MODERATE", bridge=None))
    asyncio.run(again.run(RunBudget(seconds=300, candidates=5, seeds=5)))
    stats = again_book.stats()
    assert stats["by_status"]["waiting"] == 0 and stats["by_status"]["queued"] > 0
    again_book.close()


def test_a_connection_found_again_is_not_queued_twice(world, tmp_path: Path) -> None:
    engine, book = engine_for(world, tmp_path, rule_provider("STRONG", bridge=BRIDGE), model_pairs=0)
    first = asyncio.run(engine.run(RunBudget(seconds=300, candidates=15, seeds=30)))
    second = asyncio.run(engine.run(RunBudget(seconds=300, candidates=15, seeds=30)))
    assert first["queued"] > 0 and second["duplicates"] > 0
    queued = book.candidates("queued", limit=500)
    assert len(queued) == first["queued"] + second["queued"]
    pairs = [frozenset((c.left.text, c.right.text, c.bridge)) for c in queued]
    assert len(set(pairs)) == len(pairs)
    book.close()


def test_a_halted_book_refuses_runs(world, tmp_path: Path) -> None:
    engine, book = engine_for(world, tmp_path, rule_provider("STRONG", bridge=BRIDGE), halt_after=2)
    asyncio.run(engine.run(RunBudget(seconds=300, candidates=10, seeds=20)))
    for _ in range(2):
        shown = book.next_for_audit()
        assert shown is not None
        engine.grade(shown.id, Grade(True, False, True, 3))
    with pytest.raises(UserInputError, match="halted"):
        asyncio.run(engine.run(RunBudget(seconds=5)))
    book.close()


def test_the_session_end_step_runs_within_its_budget_and_a_halt_skips_it(world, tmp_path: Path) -> None:
    from app.builders.synthesis import session_end_synthesis
    from memory.shutdown.processor import StepSkipped

    settings = SynthesisConfig(enabled=True, session_end_seconds=60, halt_after=1)
    engine, book = engine_for(world, tmp_path, rule_provider("STRONG", bridge=BRIDGE), halt_after=1)
    step = session_end_synthesis(engine, settings)
    summary = asyncio.run(step("session-1"))
    assert set(summary) == {"run_id", "seconds", "generated", "queued", "waiting", "notes"}
    assert summary["queued"] > 0 and summary["seconds"] < 60
    shown = book.next_for_audit()
    assert shown is not None
    engine.grade(shown.id, Grade(False, True, True, 1))
    with pytest.raises(StepSkipped, match="halted"):
        asyncio.run(step("session-2"))
    book.close()


def test_a_run_as_a_background_task_reports_progress_and_is_no_default_for_typed_tasks(
    world, tmp_path: Path
) -> None:
    from knowledge.synthesis.job import SYNTHESIS_JOB, TITLE, SynthesisJob
    from memory.background import BACKGROUND_FILE, BackgroundLedger
    from tests.unit.ui.shared.background_helpers import wait_for
    from ui.gui.reminders_tab import ReminderDesk, start_background
    from ui.shared.background import BackgroundRunner

    engine, book = engine_for(world, tmp_path, rule_provider("STRONG", bridge=BRIDGE), model_pairs=0)
    ledger = BackgroundLedger(tmp_path / BACKGROUND_FILE)
    job = SynthesisJob(engine, RunBudget(seconds=120, candidates=5, seeds=10))
    runner = BackgroundRunner(ledger, {}, jobs={SYNTHESIS_JOB: job})
    runner.start()
    try:
        task = runner.submit(TITLE, SYNTHESIS_JOB, origin="gui", title=TITLE)
        wait_for(lambda: ledger.get(task.id).state == "done", seconds=120)
        ended = ledger.get(task.id)
        assert "new for your review" in (ended.result or "")
        assert ended.progress.get("last")  # the job's own status lines reach the task list
        assert book.stats()["runs"] == 1
        # what someone types goes to a subagent, never to Daemon's own job
        desk = ReminderDesk(book=None, background=runner)  # type: ignore[arg-type]
        assert "need a connected model" in start_background(desk, "research my garden")
    finally:
        runner.close()
        ledger.close()
        book.close()
