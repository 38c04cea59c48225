"""The LoCoMo judge asks the model the protocol's way and reads only a real label; its verdicts are
counted per category with answers it gave no label for kept apart."""

from __future__ import annotations

import pytest

from core.providers.fake import ScriptedProvider
from eval.benchmarks.locomo import LocomoQuestion
from eval.judge import LocomoJudge, read_label
from eval.locomo_eval import Asked, judged


async def test_the_judge_sees_question_gold_and_answer_and_reads_its_label() -> None:
    provider = ScriptedProvider(['{"label": "CORRECT"}', " WRONG. ", "I think it is right."])
    judge = LocomoJudge(provider)
    assert await judge.correct("What does Dana play?", "cello", "She plays the cello.") is True
    assert await judge.correct("What does Dana play?", "cello", "The violin.") is False
    assert await judge.correct("What does Dana play?", "cello", "Strings.") is None  # no label: no verdict
    request = provider.requests[0]
    assert request.temperature == 0.0
    said = request.messages[-1].content
    assert "Question: What does Dana play?" in said and "Gold answer: cello" in said
    assert "Generated answer: She plays the cello." in said
    assert "CORRECT" in request.messages[0].content and "generous" in request.messages[0].content.lower()


async def test_an_empty_answer_is_wrong_without_asking() -> None:
    provider = ScriptedProvider([])
    assert await LocomoJudge(provider).correct("Q?", "gold", "  ") is False
    assert provider.requests == []


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ('{"label":"correct"}', True),
        ('{ "label" : "WRONG" }', False),
        ('{"verdict": "CORRECT"}', None),
        ("", None),
    ],
)
def test_only_a_label_is_read(text: str, label: bool | None) -> None:
    assert read_label(text) is label


def test_verdicts_are_counted_per_category_with_no_verdict_apart() -> None:
    q4 = LocomoQuestion("What does Dana play?", "cello", ("D1:1",), 4)
    q2 = LocomoQuestion("When?", "May", ("D1:2",), 2)
    rows = [
        Asked(q4, "Dana", "cello", 1.0, 1.0, 10, judged=True),
        Asked(q4, "Dana", "violin", 1.0, 1.0, 10, judged=False),
        Asked(q2, "Dana", "hmm", 1.0, 1.0, 10, judged=None),
    ]
    result = judged(rows)
    assert result["overall"] == {"n": 3, "correct": 1, "accuracy": 0.5, "no_verdict": 1}
    assert result["categories"]["single-hop"]["accuracy"] == 0.5
    assert result["categories"]["temporal"] == {"n": 1, "correct": 0, "accuracy": 0.0, "no_verdict": 1}
