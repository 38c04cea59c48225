"""Synthesis as a user meets it in processes: a run over the data dir's memory whose judge gives no rating
(candidates wait, and the report says why), the book read beside it, a blind review from the terminal, and an
accepted connection kept in memory at the next start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.builders.memory import build_memory_service, chroma_dir
from core.config import load_config
from eval.benchmarks.synthesis_bench import store_corpus
from eval.benchmarks.synthesis_corpus import build_corpus
from knowledge.synthesis.book import SYNTHESIS_FILE, SynthesisBook
from knowledge.synthesis.candidate import Candidate, Endpoint, Reading, StageResult
from memory.embeddings import MiniLMEmbedder
from tests.integration.data_cli import main

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _seed_memory(data: Path) -> None:
    config = load_config(overrides={"data_dir": str(data)})
    memory = build_memory_service(config, MiniLMEmbedder(threads=1), chroma_dir(config))
    try:
        store_corpus(memory, build_corpus(7))
    finally:
        memory.close()


def _queue(data: Path, count: int) -> list[str]:
    book = SynthesisBook(data / SYNTHESIS_FILE)
    readings = []
    for n in range(count):
        candidate = Candidate(
            Endpoint(f"My sourdough starter needs feeding, note {n}.", "mem-feeding-food", "obsidian_notes"),
            Endpoint(f"My savings grow when I add a little each week, note {n}.", "mem-feeding-money"),
            f"A sourdough starter and savings both live on small regular feeding ({n}).",
            "graph_walk",
        )
        stages = [StageResult("coherence", True, 1.0, "STRONG"), StageResult("composite", True, 0.8, "ok")]
        readings.append(Reading(candidate, stages, "passed", ("food and cooking", "money and finance"), 0.8))
    book.record("run-test", readings)
    book.close()
    return [r.candidate.id for r in readings]


def test_a_run_whose_judge_cannot_rate_leaves_candidates_waiting_and_says_why(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _seed_memory(data)
    run = main(tmp_path, data, "synthesis", "run", "--seconds", "120", "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["pool"] >= 40 and sum(g["candidates"] for g in report["generated"].values()) > 0
    assert report["waiting"] > 0 and report["queued"] == 0
    # the echo model "judges" by repeating the request: no rating, so nothing is queued unjudged
    assert any("no usable rating" in note for note in report["notes"])
    assert "retrieval: generating" in run.stderr  # progress
    waiting = json.loads(main(tmp_path, data, "synthesis", "list", "--status", "waiting", "--json").stdout)
    shown = json.loads(
        main(tmp_path, data, "synthesis", "show", waiting["candidates"][0]["id"], "--json").stdout
    )
    assert [s["stage"] for s in shown["candidate"]["stages"]][-1] == "internal_novelty"
    stats = json.loads(main(tmp_path, data, "synthesis", "stats", "--json").stdout)
    assert stats["by_status"]["waiting"] == report["waiting"] and stats["runs"] == 1


def test_a_blind_review_in_the_terminal_and_the_accepted_one_kept_at_the_next_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _seed_memory(data)
    first, second, third = _queue(data, 3)
    nxt = json.loads(main(tmp_path, data, "synthesis", "audit", "--json").stdout)
    assert nxt["queue"] == 3 and "generator" not in nxt["candidate"] and len(nxt["screens"]) == 3
    graded = main(
        tmp_path, data, "synthesis", "audit", "--id", first, "--answers", "yyy", "--rating", "4", "--json"
    )
    assert graded.returncode == 0, graded.stderr
    assert json.loads(graded.stdout)["candidate"]["status"] == "accepted"
    bad = main(tmp_path, data, "synthesis", "audit", "--id", second, "--answers", "yes", "--rating", "4")
    assert bad.returncode == 2 and "three letters" in bad.stderr
    # interactive: the second declined (not new to me), the third skipped, then the session ends
    session = main(tmp_path, data, "synthesis", "audit", stdin="y\ny\nn\n3\ns\n")
    assert session.returncode == 0, session.stderr
    assert (
        "Connection 1 of 2" in session.stdout
        and "declined" in session.stdout
        and "1 graded" in session.stdout
    )
    assert "graph_walk" not in session.stdout  # blind
    stats = json.loads(main(tmp_path, data, "synthesis", "stats", "--json").stdout)
    assert stats["by_status"] == {"queued": 1, "waiting": 0, "rejected": 0, "accepted": 1, "declined": 1}
    # the next start that opens memory keeps the accepted connection there, citing its sources
    memory_stats = json.loads(main(tmp_path, data, "memory", "stats", "--json").stdout)
    assert memory_stats["collections"]["synthesis_results"] == 1
    found = json.loads(
        main(
            tmp_path,
            data,
            "memory",
            "search",
            "sourdough savings feeding",
            "--collection",
            "synthesis_results",
            "--json",
        ).stdout  # fmt: skip
    )
    assert found["results"][0]["id"] == first
    assert third
    # and a later conversation's prompt carries it as a proactive insight
    asked = "Any ideas how my sourdough starter and my savings relate?"
    prompt = json.loads(main(tmp_path, data, "prompt", asked, "--json").stdout)
    assert "proactive_insights" in [s["key"] for s in prompt["sections"]]


def test_bench_synthesis_prints_its_contract_and_no_planted_candidate_survives(tmp_path: Path) -> None:
    bench = main(tmp_path, tmp_path / "data", "bench", "synthesis", "--pairs", "20", "--json")
    assert bench.returncode == 0, bench.stderr
    result = json.loads(bench.stdout)
    assert [s["name"] for s in result["stages"]] == [
        "text_sanity", "domain_crossing", "semantic_distance", "external_novelty", "internal_novelty",
        "coherence", "composite",
    ]  # fmt: skip
    assert all({"passed", "rejected"} <= set(s) for s in result["stages"])
    assert result["planted_surviving"] == 0
    assert set(result["planted"]) == {"restatement", "known_link", "same_domain", "word_salad"}
    assert 0 <= result["random_baseline_pass_rate"] <= 1
    assert result["generators"]["retrieval"]["candidates"] > 0
    assert result["generators"]["graph_walk"]["candidates"] > 0
    assert result["domain_accuracy"]["n"] > 40
