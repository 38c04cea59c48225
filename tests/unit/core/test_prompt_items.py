"""`prompt --json`: every section carries its items (marker, text, source, collection) for scripts."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from core.events import Done, RunEvent
from core.generation.reply_guard import without_markup
from core.ports import FactView, RecalledMemory
from core.prompt.builder import PromptBuilder, citation_map
from core.prompt.tokens import EstimateCounter
from core.turn_context import TurnContext


async def test_prompt_json_sections_carry_their_items_with_marker_source_and_collection() -> None:
    memory = RecalledMemory("conv_t1", "conversations", "User: My brother lives in Lisbon.", 0.7, 1.7e9)
    fact = FactView("fact_1", "my brother", "lives_in", "Lisbon", "current", 0.8, "family")
    context = TurnContext("Where does my brother live?", memories=(memory,), profile=(fact,), now=1.7e9)
    prompt = await PromptBuilder("SYSTEM", EstimateCounter(), 8000).build(context)
    sections = {s["key"]: s for s in prompt.as_dict()["sections"]}
    [remembered] = sections["relevant_memories"]["items"]
    assert remembered["marker"] == "M1" and remembered["source"] == "conv_t1"
    assert remembered["collection"] == "conversations" and "lives in Lisbon" in remembered["text"]
    [profile] = sections["user_profile"]["items"]
    assert (profile["marker"], profile["source"], profile["collection"]) == ("F1", "fact_1", "facts")
    assert sections["current_query"]["items"][0]["text"].endswith("Where does my brother live?")
    assert set(remembered) == {"marker", "text", "source", "collection"}  # --explain adds id, cite, why


async def test_an_answer_citing_a_profile_fact_names_it_as_a_numbered_source() -> None:
    fact = FactView("fact_1", "user", "lives_in", "Oslo", "current", 0.8, "location")
    prompt = await PromptBuilder("S", EstimateCounter(), 4000).build(TurnContext("hi", profile=(fact,)))

    async def events() -> AsyncGenerator[RunEvent, None]:
        yield Done(answer="You live in Oslo [F1]. Not [F9].")

    [done] = [event async for event in without_markup(events(), citation_map(prompt))]
    assert isinstance(done, Done) and done.answer == "You live in Oslo [1]. Not."
    assert [(c["marker"], c["source"], c["id"]) for c in done.citations] == [("1", "F1", "fact_1")]
