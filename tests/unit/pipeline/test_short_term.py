"""Short-term context: the message's relation to the conversation and the previous turn's intent."""

from __future__ import annotations

import pytest

from core.pipeline.intent import IntentClassifier
from core.pipeline.short_term import ShortTermMemory, relation_of


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        ("Actually, I moved to Denver last year", "correcting"),
        ("No, my dog's name is Rex, not Max", "correcting"),
        ("I no longer work at Acme", "correcting"),
        ("Do you remember what I said about the trip?", "recalling"),
        ("What did we talk about last time?", "recalling"),
        ("and the second one?", "continuing"),
        ("why?", "continuing"),
        ("I'd like to plan a garden for the spring with tomatoes and basil", "new"),
    ],
)
def test_relation_of(text: str, relation: str) -> None:
    assert relation_of(text) == relation


def test_a_follow_up_inherits_the_previous_intent() -> None:
    memory = ShortTermMemory()
    classifier = IntentClassifier()
    assert memory.hint("s1", "and the other one?") is None  # nothing before the first turn
    first = classifier.classify("my python script crashes with a KeyError in the parser")
    memory.record("s1", first.intent, first.confidence)
    hint = memory.hint("s1", "and the other one?")
    assert hint is not None and hint.is_follow_up and hint.previous_intent == first.intent == "technical_help"
    follow_up = classifier.refine(classifier.classify("and the other one?", hint), hint)
    assert follow_up.intent == "technical_help"
    assert memory.hint("s2", "and the other one?") is None  # sessions do not share context


def test_old_sessions_are_forgotten_beyond_the_bound() -> None:
    memory = ShortTermMemory(max_sessions=2)
    for session in ("a", "b", "c"):
        memory.record(session, "general", 0.5)
    assert memory.hint("a", "so?") is None and memory.hint("c", "so?") is not None
