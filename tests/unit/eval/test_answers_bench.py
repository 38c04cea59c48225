"""`bench answers`: LoCoMo's answer scoring and the fixed-seed sample."""

from __future__ import annotations

from datetime import datetime

from eval.benchmarks.answers_bench import contains_gold, normalise, sample_questions, token_f1
from eval.benchmarks.locomo import LocomoConversation, LocomoQuestion, TurnUnit


def test_answers_are_scored_on_normalised_tokens() -> None:
    assert normalise("The Lean Startup!") == "lean startup"
    assert contains_gold("7 May 2023 — Caroline said on 8 May 2023: ...", "7 May, 2023")
    assert not contains_gold("May 2023", "7 May 2023")
    assert token_f1("mushroom risotto", "a mushroom risotto") == 1.0
    assert round(token_f1("risotto with peas", "mushroom risotto"), 3) == 0.4
    assert token_f1("", "Paris") == 0.0


def test_a_day_run_into_its_month_in_the_gold_is_read_as_two_words() -> None:
    gold = "The Friday before 24June, 2022."
    assert contains_gold("The Friday before 24 June 2022 — you told me so.", gold)
    assert normalise("a 5K run on the 18th") == "5k run on 18th"  # only a month is split off


def test_the_sample_is_fixed_by_its_seed_and_keeps_single_hop_and_temporal_only() -> None:
    unit = TurnUnit("D1:1", "A: hi", "A", 1, 0, datetime(2023, 5, 8))
    questions = tuple(LocomoQuestion(f"q{i}", "a", ("D1:1",), 1 + i % 4) for i in range(40))
    conv = LocomoConversation("c1", ("A", "B"), (unit,), questions)
    first, again = sample_questions([conv], 10, seed=19), sample_questions([conv], 10, seed=19)
    assert [q.question for _, q in first] == [q.question for _, q in again]
    assert {q.category for _, q in first} <= {2, 4} and len(first) == 10


def test_the_model_answers_failed_checks_are_counted_as_generated_and_as_shown() -> None:
    from eval.benchmarks.answers_bench import _report, answers_headline

    def row(model: str, raw: list[str], shown: list[str]) -> dict[str, object]:
        return {
            "question": "q",
            "gold": "Paris",
            "category": 4,
            "extractive": "Paris",
            "span": "Paris",
            "resolved": "",
            "evidence_score": 0.9,
            "model": model,
            "model_checks": {"raw": raw, "shown": shown},
        }

    rows = [row("Paris. ### USER PROFILE", ["markup_leak"], []), row("Paris [f1]", ["citations"], [])]
    report = _report(rows, 0.5, {"extractive_ms": 1.0, "model_ms": 2.0}, 19)
    failed = report["embedded_model"]["failed_checks"]
    assert failed["raw"]["markup_leak"] == 1 and failed["raw"]["citations"] == 1
    assert sum(failed["shown"].values()) == 0
    assert (
        "objective checks failed, as generated: length 0, thinking_leak 0, markup_leak 1"
        in answers_headline(report)
    )
