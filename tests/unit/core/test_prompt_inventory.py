"""The context inventory: the prompt says what retrieval already found, so a model with tools does not
search memory again for it."""

from __future__ import annotations

from core.pipeline.analyzer import Analysis
from core.ports import FactView, RecalledMemory
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import TurnContext

HEADER = "### ALREADY RETRIEVED FOR THIS MESSAGE"


def inventory(context: TurnContext) -> str:
    import asyncio

    prompt = asyncio.run(PromptBuilder("SYS", EstimateCounter(), 8000).build(context))
    system = prompt.messages()[0].content
    assert HEADER in system
    return system.split(HEADER, 1)[1].split("\n### ", 1)[0]


def memory(n: int, collection: str) -> RecalledMemory:
    return RecalledMemory(f"{collection}{n}", collection, f"a {collection} record number {n}", 0.5, 1.0)


def test_the_inventory_counts_what_was_found_per_collection_and_the_facts() -> None:
    found = (memory(1, "conversations"), memory(2, "conversations"), memory(3, "reference_docs"))
    fact = FactView("f1", "user", "lives_in", "Porto", "current", 0.9, "location")
    analysis = Analysis("factual_recall", 0.9, "conversational", 0.0, (), (), "q")
    text = inventory(
        TurnContext("what did the manual say?", analysis=analysis, memories=found, profile=(fact,))
    )
    assert "2 from conversations, 1 from reference_docs" in text
    assert "User facts in the profile: 1." in text
    assert "Documents consulted: yes, 1 passage. Web: not consulted." in text
    assert "Do not search memory again" in text


def test_an_empty_retrieval_is_said_too() -> None:
    text = inventory(TurnContext("hello"))
    assert "found nothing relevant" in text and "User facts in the profile: 0." in text
    assert "Documents consulted: none matched" in text
