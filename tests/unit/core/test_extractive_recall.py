"""Grounded recall for the embedded model: recall questions answered from the user's own words, cited."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from core.events import Done, RunEvent, TextDelta
from core.generation.attribution import NOT_SURE, AttributionChecked, misattributed
from core.generation.extractive import (
    EXTRACTIVE_MODEL,
    AnsweredAgent,
    ExtractiveAnswerer,
    ExtractiveRecall,
    resolve,
    second_person,
)
from core.nlp import SpacyPipeline
from core.orchestrator import ModelChoice, Orchestrator
from core.pipeline.analyzer import Analysis
from core.ports import FactView, RecalledMemory
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.temporal import relative_windows
from core.turn_context import ContextGatherer, JournalHistory, TurnContext
from core.types import Message
from memory.journal import Journal

TOLD_AT = datetime(2026, 12, 3, 14, 0).timestamp()
TOLD = (
    "I work as a sound engineer at a studio called Bluefin Audio.",
    "My daughter is named Marisol.",
    "My favourite dish is mushroom risotto.",
    "My parrot is called Captain Biscuit.",
    "Last summer I went on a trip to Iceland with my wife.",
    "My brother lives in Lisbon.",
)


@pytest.fixture(scope="module")
def answerer() -> ExtractiveAnswerer:
    return ExtractiveAnswerer(SpacyPipeline())


def told(text: str, number: int, score: float = 0.5) -> RecalledMemory:
    return RecalledMemory(
        f"conv_t{number}", "conversations", f"User: {text}\nAssistant: Noted!", score, TOLD_AT
    )


MEMORIES = (
    *(told(text, i) for i, text in enumerate(TOLD)),
    # a past question (and a wrong reply to it) ranked first: neither is evidence
    RecalledMemory(
        "conv_q", "conversations", "User: Where do I work?\nAssistant: Your daughter is named Marisol.", 0.9
    ),
)
MARKERS = {m.id: f"[M{i + 1}]" for i, m in enumerate(MEMORIES)}


@pytest.mark.parametrize(
    ("question", "value", "marker"),
    [
        ("Where do I work?", "Bluefin Audio", "[M1]"),
        ("What's my job?", "sound engineer", "[M1]"),
        ("What is my daughter's name?", "Marisol", "[M2]"),
        ("What is my favourite dish?", "mushroom risotto", "[M3]"),
        ("Do you remember what my parrot is called?", "Captain Biscuit", "[M4]"),
        ("Where did I go on my trip?", "Iceland", "[M5]"),
        ("Where does my brother live?", "Lisbon", "[M6]"),
    ],
)
def test_a_recall_question_is_answered_with_the_value_its_date_and_marker(
    answerer: ExtractiveAnswerer, question: str, value: str, marker: str
) -> None:
    reply = answerer.answer(question, MEMORIES, (), MARKERS)
    assert reply.found and reply.evidence is not None
    assert value in reply.evidence.span
    assert value in reply.text and reply.text.endswith(marker)
    assert reply.text.startswith("You told me on 3 Dec")


def test_the_answer_addresses_the_user_in_the_second_person(answerer: ExtractiveAnswerer) -> None:
    reply = answerer.answer("Where do I work?", MEMORIES, (), MARKERS)
    assert reply.text == (
        "You told me on 3 Dec: you work as a sound engineer at a studio called Bluefin Audio. [M1]"
    )


def test_something_never_said_gets_the_not_in_memory_reply(answerer: ExtractiveAnswerer) -> None:
    reply = answerer.answer("What is my sister's name?", MEMORIES, (), MARKERS)
    assert not reply.found
    assert reply.text.startswith("That's not in my memory")
    assert "your sister's name" in reply.text and "Marisol" not in reply.text


def test_the_assistants_words_are_never_evidence(answerer: ExtractiveAnswerer) -> None:
    only_reply = [RecalledMemory("conv_a", "conversations", "User: Hi!\nAssistant: You live in Oslo.", 0.9)]
    assert not answerer.answer("Where do I live?", only_reply, (), {}).found


def test_a_current_fact_answers_with_the_marker_and_date_of_the_turn_it_was_told_in(
    answerer: ExtractiveAnswerer,
) -> None:
    fact = FactView("f1", "my sister", "named", "Jo", "current", 0.9, "family", source_turn_id="t9")
    source = RecalledMemory("conv_t9", "conversations", "User: Jo called.\nAssistant: Nice.", 0.3, TOLD_AT)
    reply = answerer.answer("What is my sister's name?", [source], [fact], {"conv_t9": "[M4]"})
    assert reply.evidence is not None and reply.evidence.kind == "fact"
    assert reply.text == "You told me on 3 Dec: your sister is named Jo. [M4]"


def test_a_superseded_fact_is_not_evidence(answerer: ExtractiveAnswerer) -> None:
    old = FactView("f1", "my sister", "named", "Jo", "superseded", 0.9, "family")
    assert not answerer.answer("What is my sister's name?", (), [old], {}).found


def test_a_when_question_resolves_a_relative_time_against_the_day_it_was_said(
    answerer: ExtractiveAnswerer,
) -> None:
    said = datetime(2023, 5, 8, 13, 56).timestamp()
    memory = RecalledMemory(
        "conv_1", "conversations", "Caroline: I went to a LGBTQ support group yesterday.", 0.6, said
    )
    question = "When did Caroline go to the LGBTQ support group?"
    reply = answerer.answer(question, [memory], (), {}, user_only=False)
    assert reply.evidence is not None and reply.evidence.resolved == "7 May 2023"
    assert reply.text.startswith("7 May 2023 \u2014 Caroline said on 8 May 2023:")


def test_relative_times_are_written_as_people_write_them() -> None:
    said = datetime(2023, 6, 9, 10, 0)

    def resolved(text: str) -> str:
        return resolve(relative_windows(text, said)[0], said)

    assert resolved("last week") == "the week before 9 June 2023"
    assert resolved("last year") == "2022"
    assert resolved("last Saturday") == "the Saturday before 9 June 2023"
    assert resolved("joined the group last Tues.") == "the Tuesday before 9 June 2023"  # as chat shortens it
    assert resolved("on Fri we went out") == "the Friday before 9 June 2023"
    assert resolved("two days ago") == "7 June 2023"


def test_first_person_words_are_addressed_back_to_the_user() -> None:
    assert second_person("I'm sure my dog likes me") == "you're sure your dog likes you"
    assert second_person("We love watching our pets play, they keep us busy") == (
        "you love watching your pets play, they keep you busy"
    )
    assert second_person("we're moving back to the US") == "you're moving back to the US"


def test_only_recall_questions_about_the_user_are_taken_on() -> None:
    assert ExtractiveAnswerer.applies("Where do I work?", "factual_recall")
    assert not ExtractiveAnswerer.applies("What is the capital of France?", "factual_recall")
    assert not ExtractiveAnswerer.applies("How is my day going?", "casual_social")


@pytest.fixture(scope="module")
def meaning_answerer() -> ExtractiveAnswerer:
    from memory.embeddings import MiniLMEmbedder

    return ExtractiveAnswerer(SpacyPipeline(), meaning=MiniLMEmbedder(threads=1).embed)


PHARMACIST = (
    FactView("f1", "user", "is_a", "pharmacist", "current", 0.9, "identity", source_turn_id="t1"),
    FactView("f2", "user", "works_at", "Kelsey Street clinic", "current", 0.9, "work", source_turn_id="t1"),
    FactView("f3", "my tortoise", "named", "Sir Reginald", "current", 0.9, "pets", source_turn_id="t2"),
    FactView("f4", "user", "lives_in", "Galway", "current", 0.9, "home", source_turn_id="t3"),
)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("What do I do for a living?", "pharmacist"),
        ("what's my profession", "pharmacist"),
        ("Who's my employer?", "Kelsey Street clinic"),
        ("Which town am I based in these days?", "Galway"),
    ],
)
def test_a_question_meets_the_fact_it_asks_for_in_other_words(
    meaning_answerer: ExtractiveAnswerer, question: str, value: str
) -> None:
    reply = meaning_answerer.answer(question, (), PHARMACIST, {})
    assert reply.found and reply.evidence is not None
    assert reply.evidence.span == value and value in reply.text


@pytest.mark.slow
def test_the_users_own_words_beat_a_fact_the_question_only_means(
    meaning_answerer: ExtractiveAnswerer,
) -> None:
    hiking = FactView("f7", "user", "likes", "hiking", "current", 0.9, "preferences")
    reply = meaning_answerer.answer("What is my favourite dish?", MEMORIES, [hiking], MARKERS)
    assert reply.evidence is not None and "mushroom risotto" in reply.evidence.span


@pytest.mark.slow
def test_meaning_never_hands_the_user_a_fact_about_someone_else(meaning_answerer: ExtractiveAnswerer) -> None:
    sister = FactView("f9", "my sister", "is_a", "surgeon", "current", 0.9, "family")
    reply = meaning_answerer.answer("What do I do for a living?", (), [sister], {})
    assert not reply.found and "surgeon" not in reply.text


@pytest.mark.slow
def test_a_question_about_the_users_animal_is_answered_from_memory(
    meaning_answerer: ExtractiveAnswerer,
) -> None:
    reply = meaning_answerer.answer("What's the tortoise's name?", (), PHARMACIST, {})
    assert reply.found and reply.text == "You told me: your tortoise is named Sir Reginald."


def context_for(text: str, intent: str) -> TurnContext:
    analysis = Analysis(intent, 0.9, "neutral", 0.0, (), (), text)
    return TurnContext(text, analysis=analysis, memories=MEMORIES, now=TOLD_AT)


async def test_the_recall_hook_answers_from_memory_with_the_prompts_markers(
    answerer: ExtractiveAnswerer,
) -> None:
    context = context_for("Where does my brother live?", "factual_recall")
    prompt = await PromptBuilder("SYSTEM", EstimateCounter(), 8000).build(context)
    agent = ExtractiveRecall(answerer).agent_for(context, prompt, NeverAgent())
    assert isinstance(agent, AnsweredAgent)
    events = [event async for event in agent.run(prompt.messages())]
    done = events[-1]
    assert isinstance(done, Done) and done.model == EXTRACTIVE_MODEL
    assert done.extra["answered_by"] == "memory"
    shown = prompt.as_dict(explain=True)
    lisbon = [i for s in shown["sections"] for i in s["items"] if "Lisbon" in i["text"]]
    assert lisbon and done.answer.endswith(lisbon[0]["cite"])


async def test_evidence_below_what_the_prompt_shows_is_read_and_cited_as_its_own_source(
    answerer: ExtractiveAnswerer,
) -> None:
    shown = tuple(m for m in MEMORIES if "Lisbon" not in m.text)
    analysis = Analysis("factual_recall", 0.9, "neutral", 0.0, (), (), "")
    context = TurnContext(
        "Where does my brother live?", analysis=analysis, memories=shown, now=TOLD_AT, evidence=MEMORIES
    )
    prompt = await PromptBuilder("SYSTEM", EstimateCounter(), 8000).build(context)
    assert "Lisbon" not in prompt.user_text()
    agent = ExtractiveRecall(answerer).agent_for(context, prompt, NeverAgent())
    done = [event async for event in agent.run([])][-1]
    assert isinstance(done, Done) and "Lisbon" in done.answer and done.answer.endswith("[1]")
    assert "Lisbon" in done.citations[0]["label"]  # the sources list quotes what the prompt did not show


async def test_a_question_about_someone_else_is_answered_from_memory_only_when_memory_holds_it(
    answerer: ExtractiveAnswerer,
) -> None:
    builder = PromptBuilder("SYSTEM", EstimateCounter(), 8000)
    known = context_for("What is the parrot called?", "factual_recall")
    agent = ExtractiveRecall(answerer).agent_for(known, await builder.build(known), NeverAgent())
    assert isinstance(agent, AnsweredAgent)  # no "my", but the parrot is one the user told about
    done = [event async for event in agent.run([])][-1]
    assert isinstance(done, Done) and "Captain Biscuit" in done.answer
    unknown = context_for("What is the capital of France?", "factual_recall")
    left = ExtractiveRecall(answerer).agent_for(unknown, await builder.build(unknown), NeverAgent())
    assert isinstance(left, AttributionChecked)  # the model answers, its reply checked


async def test_small_talk_is_left_to_the_model(answerer: ExtractiveAnswerer) -> None:
    context = context_for("How are you today?", "casual_social")
    prompt = await PromptBuilder("SYSTEM", EstimateCounter(), 8000).build(context)
    assert isinstance(ExtractiveRecall(answerer).agent_for(context, prompt, NeverAgent()), AttributionChecked)


async def test_a_general_question_about_someone_the_user_talked_about_is_answered_from_memory(
    answerer: ExtractiveAnswerer,
) -> None:
    builder = PromptBuilder("SYSTEM", EstimateCounter(), 8000)
    analysis = Analysis("general", 0.5, "neutral", 0.0, (), (), "")
    memories = (
        *MEMORIES,
        told("Oliver's hilarious! He hid his bone in my slipper once!", 9),
        told("Isla turned seven last week, she wants to be a vet.", 10),
        told("We went to France last summer, the capital was packed.", 11),
    )

    def context_of(question: str) -> TurnContext:
        return TurnContext(question, analysis=analysis, memories=memories, now=TOLD_AT)

    dog = context_of("Where did Oliver hide his bone once?")
    agent = ExtractiveRecall(answerer).agent_for(dog, await builder.build(dog), NeverAgent())
    assert isinstance(agent, AnsweredAgent)
    done = [event async for event in agent.run([])][-1]
    assert isinstance(done, Done) and "your slipper" in done.answer
    isla = context_of("What does Isla want to be?")
    agent = ExtractiveRecall(answerer).agent_for(isla, await builder.build(isla), NeverAgent())
    done = [event async for event in agent.run([])][-1]
    assert isinstance(done, Done) and "vet" in done.answer
    # a name the user never said, a request, and a question memory has no answer to stay the model's
    for question in (
        "Who was Oliver Cromwell?",
        "Can you write a poem about how Oliver hid his bone?",
        "What does Oliver like to eat?",
        "What is the capital of France?",  # a place the user went to is not whom the question asks about
    ):
        other = context_of(question)
        left = ExtractiveRecall(answerer).agent_for(other, await builder.build(other), NeverAgent())
        assert isinstance(left, AttributionChecked), question


class FixedRecall:
    """Takes on messages that start with "recall:", answering "from memory [M1]"."""

    def agent_for(self, context: TurnContext, prompt: object, agent: Any) -> Any:
        if not context.text.startswith("recall:"):
            return agent
        return AnsweredAgent(Done(answer="from memory [M1]", model=EXTRACTIVE_MODEL))


class NeverAgent:
    def __init__(self) -> None:
        self.runs = 0

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        self.runs += 1
        yield TextDelta("model")
        yield Done(answer="model", model="small")


async def test_the_orchestrator_lets_the_recall_answerer_take_a_turn_instead_of_the_model(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    model = NeverAgent()
    orchestrator = Orchestrator(
        [ModelChoice("local", model, recall=FixedRecall())],
        journal,
        ContextGatherer(JournalHistory(journal, 4)),
        PromptBuilder("S", EstimateCounter(), 4000),
    )
    recalled = [e async for e in orchestrator.run_turn("recall: where?")]
    chatted = [e async for e in orchestrator.run_turn("hello")]
    assert isinstance(recalled[-1], Done) and recalled[-1].model == EXTRACTIVE_MODEL
    stored = journal.turn(recalled[-1].turn_id)
    assert stored is not None and stored.model == EXTRACTIVE_MODEL
    assert isinstance(chatted[-1], Done) and chatted[-1].model == "small" and model.runs == 1
    journal.close()


def test_a_fact_whose_turn_was_not_recalled_cites_its_profile_line(answerer: ExtractiveAnswerer) -> None:
    fact = FactView("f1", "user", "lives_in", "Oslo", "current", 0.9, "location", source_turn_id="gone")
    reply = answerer.answer("Where do I live?", (), [fact], {"f1": "[F1]"})
    assert reply.text == "You told me: you live in Oslo. [F1]"


def test_a_fact_whose_turn_was_recalled_but_left_out_of_the_prompt_cites_its_profile_line(
    answerer: ExtractiveAnswerer,
) -> None:
    fact = FactView("f1", "user", "lives_in", "Oslo", "current", 0.9, "location", source_turn_id="t9")
    told = "User: I live in Oslo.\nAssistant: Nice."
    source = RecalledMemory("conv_t9", "conversations", told, 0.3, TOLD_AT)
    reply = answerer.answer("Where do I live?", [source], [fact], {"f1": "[F1]"})  # conv_t9 cut by the budget
    assert reply.text.endswith("[F1]"), reply.text


TORTOISE = FactView("f3", "my tortoise", "named", "Sir Reginald", "current", 0.9, "pets")
SISTER = FactView("f5", "my sister", "is_a", "surgeon", "current", 0.9, "family")
JO = FactView("f6", "Jo", "sister_of", "user", "current", 0.9, "family")


def test_a_sentence_giving_the_user_someone_elses_value_is_misattributed() -> None:
    facts = [TORTOISE, SISTER, JO]
    assert misattributed("Hello! The user's name is sir reginald. He is old.", facts) == [
        "The user's name is sir reginald."
    ]
    assert misattributed("You are a surgeon at the clinic.", facts) == ["You are a surgeon at the clinic."]
    assert misattributed("Your tortoise Sir Reginald is older than you.", facts) == []
    assert misattributed("Your sister is a surgeon, and you are a user of the app.", facts) == []


async def test_a_misattributed_reply_is_replaced_by_the_answer_from_memory() -> None:
    class Confused(NeverAgent):
        async def run(
            self,
            messages: list[Message],
            *,
            cancel: asyncio.Event | None = None,
            max_tokens: int | None = None,
        ) -> AsyncIterator[RunEvent]:
            yield TextDelta("Your name is ")
            yield TextDelta("Sir Reginald.")
            yield Done(answer="Your name is Sir Reginald.", model="small")

    checked = AttributionChecked(
        Confused(), [TORTOISE], lambda: "You told me: your tortoise is named Sir Reginald."
    )
    events = [event async for event in checked.run([])]
    assert [e.text for e in events if isinstance(e, TextDelta)] == [
        "You told me: your tortoise is named Sir Reginald."
    ]
    assert isinstance(events[-1], Done) and events[-1].answer.startswith("You told me: your tortoise")
    dropped = AttributionChecked(Confused(), [TORTOISE], lambda: None)
    assert [event async for event in dropped.run([])][-1] == Done(answer=NOT_SURE, model="small")


NAMED_DANA = FactView("n1", "user", "named", "Dana", "current", 0.9, "identity")


def test_a_question_naming_the_user_by_their_own_name_is_answered_from_their_own_words(
    answerer: ExtractiveAnswerer,
) -> None:
    memories = (told("I finally joined a string quartet, I play the cello in it.", 1),)
    reply = answerer.answer("What instrument does Dana play?", memories, (NAMED_DANA,), {})
    assert reply.found and "cello" in reply.text and "named Dana" not in reply.text


def test_a_fact_sharing_only_the_name_asked_about_is_no_answer(answerer: ExtractiveAnswerer) -> None:
    sam = FactView("f1", "my brother", "named", "Sam", "current", 0.9, "family")
    assert not answerer.answer("Where does Sam live?", (), (sam,), {}).found
    assert not answerer.answer("What does Dana repair?", (), (NAMED_DANA,), {}).found


async def test_a_question_naming_the_user_is_taken_on_whatever_its_intent(
    answerer: ExtractiveAnswerer,
) -> None:
    analysis = Analysis("general", 0.5, "neutral", 0.0, (), (), "What does Omar repair?")
    memories = (told("I have been repairing old bicycles in my garage.", 1),)
    omar = FactView("n1", "user", "named", "Omar", "current", 0.9, "identity")
    context = TurnContext("What does Omar repair?", analysis=analysis, memories=memories, profile=(omar,))
    prompt = await PromptBuilder("SYSTEM", EstimateCounter(), 8000).build(context)
    agent = ExtractiveRecall(answerer).agent_for(context, prompt, NeverAgent())
    assert isinstance(agent, AnsweredAgent)
    done = [event async for event in agent.run([])][-1]
    assert isinstance(done, Done) and "old bicycles" in done.answer
    ordinary = TurnContext(
        "What should I cook tonight?", analysis=analysis, memories=memories, profile=(omar,)
    )
    left = ExtractiveRecall(answerer).agent_for(
        ordinary, await PromptBuilder("S", EstimateCounter(), 8000).build(ordinary), NeverAgent()
    )
    assert isinstance(left, AttributionChecked)  # first person, not a recall: still the model's
    will = FactView("n2", "user", "named", "Will", "current", 0.9, "identity")
    weather = TurnContext("Will it rain tomorrow?", analysis=analysis, memories=memories, profile=(will,))
    prompt = await PromptBuilder("S", EstimateCounter(), 8000).build(weather)
    assert isinstance(ExtractiveRecall(answerer).agent_for(weather, prompt, NeverAgent()), AttributionChecked)


NEVER_TOLD = (
    "What's my name?",
    "What city do I live in?",
    "Do I have a dog?",
    "What is my dog's name?",
    "What do I do for a living?",
    "Where do I work?",
    "When is my birthday?",
    "How many kids do I have?",
    "What's my favourite food?",
    "Which school did I go to?",
    "Who is my dentist?",
    "What did I eat yesterday?",
    "What was that book I mentioned?",
    "Where does Sam live?",
    "What car do I drive?",
    "Do I speak any other languages?",
    "What are my hobbies?",
    "Have I ever been to Japan?",
    "What's my sister's job?",
    "How old am I?",
)


@pytest.mark.parametrize("question", NEVER_TOLD)
def test_the_not_in_memory_reply_names_a_whole_phrase_for_every_question(
    answerer: ExtractiveAnswerer, question: str
) -> None:
    reply = answerer.answer(question).text
    topic = reply.removeprefix("That's not in my memory: I found nothing you told me about ").split(". If")[0]
    assert reply.startswith("That's not in my memory: ") and reply.endswith(
        "If you tell me, I'll remember it."
    )
    # a noun phrase as a person would say it, never loose words ("city live", "living")
    assert re.fullmatch(r"that|(?:your|a|an|the|any|some) [\w' ]+|[A-Z]\w*(?: [A-Z]\w*)*", topic), topic


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("What do I do for a living?", "your work"),
        ("What city do I live in?", "your city"),
        ("What's my name?", "your name"),
        ("What is my dog's name?", "your dog's name"),  # someone else's: the phrase, not the user's name
    ],
)
def test_the_not_in_memory_reply_names_what_a_question_means(
    meaning_answerer: ExtractiveAnswerer, question: str, topic: str
) -> None:
    reply = meaning_answerer.answer(question).text
    found_nothing = "That's not in my memory: I found nothing you told me about"
    assert reply == f"{found_nothing} {topic}. If you tell me, I'll remember it."


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("How long has Dana been practicing art?", "that"),
        ("What is Dana's hand-painted bowl a reminder of?", "your hand-painted bowl"),
        ("When did Dana and Gina decide to collaborate?", "Gina"),
    ],
)
def test_the_not_in_memory_reply_never_calls_the_user_someone_else(
    answerer: ExtractiveAnswerer, question: str, topic: str
) -> None:
    reply = answerer.answer(question, (), (NAMED_DANA,)).text
    found_nothing = "That's not in my memory: I found nothing you told me about"
    assert reply == f"{found_nothing} {topic}. If you tell me, I'll remember it."


def test_a_message_is_found_by_the_question_it_answered(answerer: ExtractiveAnswerer) -> None:
    # what it answered counts half, as who said it does: found with the relevance of a memory ranked high
    reply = told("Researching adoption agencies. It's been a dream to have a family.", 20, score=0.9)
    asked_before = {reply.id: "Any fun plans for the summer?"}
    found = answerer.answer("What are my plans for the summer?", (reply,), (), {}, answering=asked_before)
    assert found.found and "researching adoption agencies" in found.text
    # only the message's first sentence answers it; and without the question, nothing is shared
    assert "a dream" not in found.text
    assert not answerer.answer("What are my plans for the summer?", (reply,), (), {}).found


async def test_a_question_about_someone_of_the_users_that_memory_cannot_answer_is_not_made_up(
    answerer: ExtractiveAnswerer,
) -> None:
    builder = PromptBuilder("SYSTEM", EstimateCounter(), 8000)
    oliver = FactView("f1", "my dog", "named", "Oliver", "current", 0.9, "pets")
    memories = (told("My dog is named Oliver, he is a spaniel.", 30),)

    async def agent_for(question: str, intent: str) -> Any:
        analysis = Analysis(intent, 0.5, "neutral", 0.0, (), (), question)
        context = TurnContext(question, analysis=analysis, memories=memories, profile=(oliver,))
        return ExtractiveRecall(answerer).agent_for(context, await builder.build(context), NeverAgent())

    for question, intent in (
        ("What is Oliver's favourite toy?", "factual_recall"),
        ("What does Oliver like to eat?", "general"),
    ):
        agent = await agent_for(question, intent)
        assert isinstance(agent, AnsweredAgent), question
        done = [event async for event in agent.run([])][-1]
        assert isinstance(done, Done) and done.answer.startswith("You've told me about Oliver, but nothing")
    # someone else of the same first name, and anyone the user never named, are the model's
    for question in ("Who was Oliver Cromwell?", "Who is Sam Altman?"):
        assert isinstance(await agent_for(question, "general"), AttributionChecked), question
