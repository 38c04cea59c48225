"""Short-term context: the message's relation to the conversation, recent topics, open questions."""

from __future__ import annotations

import pytest

from core.pipeline.short_term import merge_topics, open_after_turn, relation_of, with_open


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


def test_topics_are_newest_first_without_repeats_and_bounded() -> None:
    assert merge_topics(("garden", "tomatoes"), ("basil", "garden", "spring"), 4) == (
        "garden",
        "tomatoes",
        "basil",
        "spring",
    )
    assert merge_topics(("a", "b", "c"), ("d",), 2) == ("a", "b")


def test_a_question_the_reply_left_open_stays_open_until_answered() -> None:
    open_ = open_after_turn((), "Where did I park?", "I'm not sure, you didn't tell me.", "complete", 3)
    assert open_ == ("Where did I park?",)
    assert open_after_turn(open_, "Thanks, that helps.", "", "failed", 3) == open_  # not a question
    assert open_after_turn(open_, "where did I  park?", "Level 2.", "complete", 3) == ()
    failed = open_after_turn(open_, "Who is Jo?", "", "failed", 1)
    assert failed == ("Who is Jo?",)  # only the newest are kept


def test_questions_found_by_the_refinement_are_added_once() -> None:
    assert with_open(("Who is Jo?",), ["who is jo?", " When is the move? ", ""], 3) == (
        "Who is Jo?",
        "When is the move?",
    )
