"""Each objective check fails the answer it is about and passes a clean one."""

from __future__ import annotations

from core.ports import FactView
from eval.objective_checks import CHECKS, check_answer

PROMPT = (
    "SYSTEM\n### USER PROFILE\n[F1] The user is a pharmacist.\n"
    "### RELEVANT MEMORIES\n[M1] User: Our tortoise is Sir Reginald."
)
TORTOISE = FactView("f3", "my tortoise", "named", "Sir Reginald", "current", 0.9, "pets")


def failed(answer: str, max_words: int = 300) -> list[str]:
    results = check_answer(
        answer,
        question="What's the tortoise's name?",
        prompt_text=PROMPT,
        markers={"F1", "M1"},
        facts=[TORTOISE],
        max_words=max_words,
    )
    assert [r.name for r in results] == list(CHECKS)
    return [r.name for r in results if not r.passed]


def test_a_grounded_cited_answer_passes_every_check() -> None:
    assert failed("Your tortoise is called Sir Reginald [M1].") == []


def test_each_fault_fails_its_own_check() -> None:
    assert failed("") == ["length"]
    assert failed("word " * 12, max_words=10) == ["length"]
    assert failed("<think>the user asked</think> Sir Reginald, your tortoise.") == ["thinking_leak"]
    assert failed("Your tortoise is Sir Reginald. ### trusted faces") == ["markup_leak"]
    assert failed("Your tortoise is Sir Reginald [f1].") == ["citations"]
    assert failed("Your tortoise is called Teodora Elena.") == ["grounding"]
    assert failed("Great question! Your tortoise is Sir Reginald.") == ["filler"]
    assert failed("The user's name is Sir Reginald.") == ["attribution"]
