"""`bench tone`: false-alarm rates on unlabelled chat, recall on labelled sets and on explicit evidence,
beside a baseline, from one run (fake detectors: what is measured here is the arithmetic)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from core.pipeline.tone import ToneDetector, ToneLevel
from eval.benchmarks.tone_bench import read_cases, run_tone_benchmark, tone_headline


class Reads:
    """A detector that reads a level off a keyword in the text."""

    def __init__(self, levels: dict[str, str]) -> None:
        self.levels = levels

    def detect(self, text: str) -> Any:
        level = next((lv for word, lv in self.levels.items() if word in text), "conversational")
        return type("Result", (), {"level": ToneLevel(level)})()


def detector(levels: dict[str, str]) -> ToneDetector:
    return cast(ToneDetector, Reads(levels))


def test_an_unlabelled_file_counts_every_alarm_as_false(tmp_path: Path) -> None:
    chat = tmp_path / "chat.txt"
    lines = ("a walk by the river", "plans that day", "I'm keeping at it", "I miss the river")
    chat.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_tone_benchmark(
        [chat], {"base": detector({}), "shipped": detector({"river": "crisis", "plans": "concern"})}
    )
    columns = result["files"][str(chat)]["columns"]
    assert columns["base"]["crisis_rate"] == 0.0
    assert (columns["shipped"]["crisis_rate"], columns["shipped"]["concern_or_above_rate"]) == (0.5, 0.75)
    assert "crisis_recall" not in columns["shipped"] and "all" not in result


def test_a_labelled_file_reports_recall_precision_and_recall_on_explicit_evidence(tmp_path: Path) -> None:
    labelled = tmp_path / "set.tsv"
    labelled.write_text(
        "text\tlabel\n"
        "took all the pills\tcrisis\n"
        "said goodbye to everyone\tcrisis\n"
        "so stressed\tconcern\n"
        "the pills are in the drawer\tconversational\t1\n",
        encoding="utf-8",
    )
    evidence = tmp_path / "evidence.tsv"
    evidence.write_text(
        "# file\ttext\tevidence\tkind\n"
        "set.tsv\ttook all the pills\t1\tmeans\n"
        "set.tsv\tsaid goodbye to everyone\t0\tnone\n",
        encoding="utf-8",
    )
    shipped = detector({"took": "crisis", "goodbye": "concern", "stressed": "concern"})
    chat = tmp_path / "chat.txt"
    chat.write_text("hello\n", encoding="utf-8")
    result = run_tone_benchmark([labelled, chat], {"shipped": shipped}, evidence)
    figures = result["files"][str(labelled)]["columns"]["shipped"]
    assert figures["crisis_recall"] == [1, 2] and figures["crisis_precision"] == [1, 1]
    assert figures["crisis_read_concern_or_above"] == [2, 2]
    assert figures["crisis_recall_explicit_evidence"] == [1, 1] and figures["crisis_recall_implied"] == [0, 1]
    assert figures["accuracy"] == 0.75 and figures["crisis_rate"] == 0.0
    assert result["all"]["messages"] == 5
    assert [c.observational for c in read_cases(labelled)] == [False, False, False, True]
    table = tone_headline(result)
    assert "| crisis recall, explicit evidence | 1/1 = 1.000 |" in table and "all files: 5 messages" in table
