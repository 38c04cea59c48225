"""`python main.py eval …` in real processes on the embedded defaults: `eval locomo` tells a small
LoCoMo-format file through the real write path and asks it through the orchestrator (the JSON contract, an
answer to every question, the user's data dir given only the report asked for); `eval variants` answers a
saved prompt and its variant and resumes; `eval corpus` checks each query and names each broken
expectation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eval.persistence_guard import fingerprint

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "data" / "locomo_tiny.json"
pytestmark = [pytest.mark.integration, pytest.mark.slow]


def evaluate(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DAEMON_DATA_DIR": str(data)}
    command = [sys.executable, str(ROOT / "main.py"), "eval", "locomo", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)


def test_eval_locomo_answers_each_question_end_to_end_and_leaves_the_data_dir_alone(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "journal.sqlite3").write_bytes(b"the user's turns")
    before = fingerprint(data)

    done = evaluate(data, "--dataset", str(TINY), "--json", "--report")
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["overall"]["n"] == 5 and set(result["overall"]) == {"n", "f1", "contains_gold"}
    assert set(result["categories"]) == {"single-hop", "multi-hop"}
    assert result["categories"]["single-hop"]["n"] == 4
    assert result["failed"] == 0 and all(row["answer"].strip() for row in result["rows"])
    assert {row["speaker"] for row in result["rows"]} == {"Dana", "Omar"}  # each asked in its own view
    assert result["retrieval_recall"] > 0 and result["memory_tokens_per_turn"] > 0
    assert result["latency_ms"]["p95"] >= result["latency_ms"]["p50"] > 0
    assert set(result["bench_answers"]) == {"span", "reply"}
    assert result["bench_answers"]["span"]["overall"]["n"] == 5
    after = fingerprint(data)
    after.pop("daemon.log", None)  # every command logs to the data dir it runs on
    reports = sorted(name for name in after if name.startswith("eval/"))
    assert [Path(name).suffix for name in reports] == [".html", ".md"]  # the report asked for, nothing else
    assert "| single-hop (4) |" in (data / reports[1]).read_text()
    assert {k: v for k, v in after.items() if not k.startswith("eval/")} == before

    missing = evaluate(data, "--dataset", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "dataset not found" in missing.stderr
    assert "Traceback" not in missing.stderr


async def test_eval_variants_answers_a_saved_prompt_and_its_variant_with_the_embedded_model(
    tmp_path: Path,
) -> None:
    from core.ports import RecalledMemory
    from core.prompt.builder import PromptBuilder
    from core.prompt.tokens import EstimateCounter
    from core.turn_context import TurnContext
    from eval.snapshots import capture, save

    memories = (
        RecalledMemory("conv_1", "conversations", "User: Our tortoise is Sir Reginald.", 0.8, 1.7e9),
        RecalledMemory("conv_2", "conversations", "User: I work as a pharmacist.", 0.7, 1.7e9),
    )
    context = TurnContext("What's my tortoise called?", memories=memories, now=1.7e9 + 60)
    prompt = await PromptBuilder("SYSTEM", EstimateCounter(), 4000).build(context)
    snapshot = tmp_path / "tortoise.json"
    save(capture(prompt, query=context.text, config_text="cfg", model="local"), snapshot)
    out = tmp_path / "run"
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data")}
    command = [sys.executable, str(ROOT / "main.py"), "eval", "variants", "--snapshot", str(snapshot)]
    command += ["--model", "local", "--out", str(out), "--strategies", "reorder", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert set(summary["variants"]) == {"full", "reversed"} and summary["jobs"]["generated_now"] == 2
    rows = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert all(row["answer"] for row in rows)
    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    assert again.returncode == 0
    assert json.loads(again.stdout)["jobs"]["generated_now"] == 0  # resumed: nothing asked again


def test_eval_corpus_checks_each_query_in_a_real_process(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.yaml"
    corpus.write_text(
        "seed: ['Our tortoise is called Sir Reginald.']\n"
        "queries:\n"
        '  - {text: "What\'s my tortoise called?", intent: factual_recall, tone: conversational,'
        " sections: [relevant_memories], must_not_include: ['###'], max_words: 60}\n"
        "  - {text: 'What is my tortoise called?', intent: general, tone: conversational,"
        " sections: [], must_not_include: ['Reginald'], max_words: 60}\n",
        encoding="utf-8",
    )
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data")}
    command = [sys.executable, str(ROOT / "main.py"), "eval", "corpus", "--corpus", str(corpus), "--json"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    first, second = result["rows"]
    assert first["failed"] == [] and "Sir Reginald" in first["reply"]
    # the second query's expectations are wrong on purpose: each is reported, by name
    assert "intent (factual_recall)" in second["failed"] and "said 'Reginald'" in second["failed"]
    assert result["passed"] == 1 and result["intents"]["general"] == {"n": 1, "passed": 0}
