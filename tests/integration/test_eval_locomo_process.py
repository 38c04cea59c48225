"""`python main.py eval locomo` in a real process on a small LoCoMo-format file: the conversation is told
through the real write path and asked through the real orchestrator on the embedded defaults; the JSON keys
are the documented contract, every question gets an answer, and the user's data dir gets the report asked for
and nothing else."""

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
    assert (
        again.returncode == 0 and json.loads(again.stdout)["jobs"]["generated_now"] == 0
    )  # resumed: all done
