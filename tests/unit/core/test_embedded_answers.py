"""What answers a turn when the embedded model is chosen: tools, memory, built-in replies, and the model
only for the rest, on a short prompt, its reply trimmed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from core.events import Done, RunEvent, TextDelta, ToolCallStarted
from core.generation.direct_tools import DIRECT_MODEL
from core.generation.embedded import (
    BUILT_IN,
    CARE,
    FALLBACK,
    SMALL_TALK_PROMPT,
    EmbeddedAnswers,
    social_reply,
    trimmed,
)
from core.generation.extractive import EXTRACTIVE_MODEL, ExtractiveAnswerer, ExtractiveRecall
from core.generation.told import Told, acknowledgement, asks_for_summary, summary
from core.nlp import SpacyPipeline
from core.pipeline.analyzer import Analysis
from core.ports import ExtractedFact, FactView
from core.prompt.assembly import AssembledPrompt
from core.turn_context import TurnContext
from core.types import Message

MAYA = (
    FactView("f1", "user", "named", "Maya Lindqvist", "current", 0.8, "identity"),
    FactView("f2", "user", "lives_in", "Gothenburg", "current", 0.8, "location"),
    FactView("f3", "user", "has_pet", "Pepper", "current", 0.8, "pets"),
    FactView("f4", "Pepper", "is_a", "grey cat", "current", 0.8, "pets"),
)


class Recording:
    """A model agent that records what it was given and says a fixed reply."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.seen: list[tuple[list[Message], int | None]] = []

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        self.seen.append((messages, max_tokens))
        yield TextDelta(self.reply)
        yield Done(answer=self.reply, model="smollm2")


class Telling:
    """A fact extractor that reads one fixed statement."""

    def extract(self, text: str) -> list[ExtractedFact]:
        if "Lyon" not in text:
            return []
        return [ExtractedFact("user", "lives in", "Lyon", "location", "user", text, 0.9)]


@pytest.fixture(scope="module")
def answers() -> EmbeddedAnswers:
    return EmbeddedAnswers(ExtractiveRecall(ExtractiveAnswerer(SpacyPipeline())), Telling())


def _analysis(intent: str = "general", tone: str = "conversational", act: str = "statement") -> Analysis:
    return Analysis(intent, 0.9, tone, 0.0, (), (), "", speech_act=act)


def _turn(answers: EmbeddedAnswers, text: str, model: Recording, **analysis: str) -> list[RunEvent]:
    context = TurnContext(text, analysis=_analysis(**analysis), profile=MAYA)
    agent = answers.agent_for(context, AssembledPrompt("S", (), 1000, 0, "estimate"), model)

    async def run() -> list[RunEvent]:
        return [event async for event in agent.run([Message("user", text)])]

    return asyncio.run(run())


def test_a_sum_is_answered_by_the_calculator_and_never_reaches_the_model(answers: EmbeddedAnswers) -> None:
    model = Recording("42")
    events = _turn(answers, "What is 17.5% of 2480?", model, act="question")
    assert isinstance(events[0], ToolCallStarted) and events[0].call.name == "calculator"
    done = events[-1]
    assert isinstance(done, Done) and done.answer == "17.5% of 2480 = 434" and done.model == DIRECT_MODEL
    assert model.seen == []


def test_what_is_remembered_is_the_facts_grouped(answers: EmbeddedAnswers) -> None:
    done = _turn(answers, "What do you remember about me?", Recording("x"), act="question")[-1]
    assert isinstance(done, Done) and done.model == EXTRACTIVE_MODEL
    assert done.answer == (
        "Here's what you've told me:\n\n- **You:** your name is Maya Lindqvist\n"
        "- **Home:** you live in Gothenburg\n- **Pets:** you have a grey cat called Pepper"
    )


def test_a_statement_that_tells_a_fact_is_acknowledged_with_it(answers: EmbeddedAnswers) -> None:
    model = Recording("I am Maya and I love blogs.")
    done = _turn(answers, "I moved to Lyon last spring", model)[-1]
    assert isinstance(done, Done) and done.answer == "Got it. I'll remember that you live in Lyon."
    assert model.seen == []


def test_grief_gets_a_line_of_care_not_the_model(answers: EmbeddedAnswers) -> None:
    model = Recording("A simple but effective way to start a conversation.")
    done = _turn(answers, "My grandmother passed away last week", model, intent="emotional_support")[-1]
    assert isinstance(done, Done) and (done.answer, done.model) == (CARE, BUILT_IN) and model.seen == []


def test_a_greeting_gets_its_one_right_answer_by_name(answers: EmbeddedAnswers) -> None:
    done = _turn(answers, "hello there", Recording("I'm sorry for your loss."), intent="casual_social")[-1]
    assert isinstance(done, Done) and done.answer == "Hello, Maya! What's on your mind?"


def test_the_model_answers_the_rest_on_a_short_prompt_with_no_memory_in_it(answers: EmbeddedAnswers) -> None:
    model = Recording("The capital of France is Paris. It is big. It has a tower.")
    done = _turn(answers, "What is the capital of France?", model, act="question")[-1]
    assert isinstance(done, Done) and done.answer == "The capital of France is Paris. It is big."
    [(messages, budget)] = model.seen
    assert [m.content for m in messages] == [SMALL_TALK_PROMPT, "What is the capital of France?"]
    assert budget is not None and budget <= 60


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("Hi! I'm Maya Lindqvist and I'm here to help you. How are you?", "Hi! How are you?"),
        ("Your dog Biscuit is lovely. Nice day.", "Nice day."),
        ("Sure. Sure. Sure.", "Sure."),
        (
            "Paris is the capital of France. It has the Eiffel Tower. And",
            "Paris is the capital of France. It has the Eiffel Tower.",
        ),
        ("I'm your friend Zoltan", FALLBACK),
    ],
)
def test_the_models_reply_keeps_whole_sentences_that_invent_no_one(reply: str, kept: str) -> None:
    assert trimmed(reply, "hello there") == kept


@pytest.mark.parametrize(
    ("message", "reply"),
    [
        ("Thanks!", "You're welcome, Maya!"),
        ("good morning", "Hello, Maya! What's on your mind?"),
        ("bye", "Goodbye, Maya! I'll remember what we talked about."),
        ("How are you?", "I'm well, thank you for asking. How are you?"),
        ("thanks for the recipe, it worked", None),
        ("hello, can you help me plan a trip?", None),
    ],
)
def test_only_a_whole_social_message_gets_a_built_in_reply(message: str, reply: str | None) -> None:
    assert social_reply(message, ["Maya Lindqvist"]) == reply


@pytest.mark.parametrize(
    "message", ["What do you remember about me?", "who am I?", "Hey, what do you know about me so far?"]
)
def test_asking_what_is_remembered_is_read_as_such(message: str) -> None:
    assert asks_for_summary(message)


@pytest.mark.parametrize("message", ["What do you remember about Paris?", "Who am I meeting tomorrow?"])
def test_other_questions_are_not_read_as_asking_for_the_summary(message: str) -> None:
    assert not asks_for_summary(message)


def test_the_acknowledgement_greets_by_name_and_says_an_animal_with_its_kind() -> None:
    told = [
        Told("user", "named", "Maya Lindqvist"),
        Told("user", "is_a", "veterinary nurse"),
        Told("user", "has_pet", "Pepper"),
        Told("Pepper", "is_a", "grey cat"),
    ]
    assert acknowledgement(told) == (
        "Nice to meet you, Maya! I'll remember that you are a veterinary nurse and you have a grey cat "
        "called Pepper."
    )
    assert acknowledgement([]) is None


def test_the_summary_of_nothing_says_how_to_begin() -> None:
    assert summary([]).startswith("I don't know anything about you yet.")


def test_the_summary_cites_each_fact_and_puts_others_under_people() -> None:
    told = [
        Told("user", "lives_in", "Oslo", "location", "f1"),
        Told("Jo", "is_a", "dentist", "identity", "f2"),
    ]
    text = summary(told, {"f1": "[F1]", "f2": "[F2]"})
    assert "- **Home:** you live in Oslo [F1]" in text and "- **People:** Jo is a dentist [F2]" in text
