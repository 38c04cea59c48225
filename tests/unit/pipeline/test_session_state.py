"""A session's state between turns: messages advance it, replies settle it, nothing here stores it."""

from __future__ import annotations

from core.pipeline.intent import IntentClassifier
from core.pipeline.session_state import (
    MAX_TONES,
    InMemorySessionStates,
    MessageReading,
    advance,
    directive_for,
    hint,
    settle,
    summary,
)
from core.ports import SessionState


def said(text: str, tone: str = "elevated", intent: str = "emotional_support") -> MessageReading:
    return MessageReading(text, tone, intent, 0.8, ("work",))


def test_three_distressed_messages_in_a_row_move_the_session_to_grounding_presence() -> None:
    state = SessionState()
    seen = []
    for text in ("I can't cope anymore", "everything is falling apart", "I can't stop shaking"):
        state = settle(advance(state, said(text)), text, "That sounds so hard. I'm here.", "complete")
        seen.append((state.escalation_state, state.turns_in_state))
    assert seen == [("validate_and_suggest", 1), ("validate_and_suggest", 2), ("grounding_presence", 1)]
    assert state.tones == ("elevated",) * 3 and state.distress_streak == 3 and state.turns == 3
    assert directive_for(state).state.value == "grounding_presence"
    state = advance(state, said("still awful"))
    assert (state.escalation_state, state.turns_in_state) == ("grounding_presence", 2)


def test_the_tone_history_keeps_the_most_recent_levels() -> None:
    state = SessionState()
    for i in range(MAX_TONES + 3):
        tone = "crisis" if i == MAX_TONES + 2 else "conversational"
        state = advance(state, said(f"message {i}", tone=tone))
    assert len(state.tones) == MAX_TONES and state.tones[-1] == "crisis"


def test_a_suggestion_waits_for_the_next_message_which_may_ignore_it() -> None:
    state = advance(SessionState(), said("I feel awful"))
    state = settle(state, "I feel awful", "You might try a short walk outside.", "complete")
    assert state.pending_suggestion is not None and "walk" in state.pending_suggestion
    after = advance(state, said("nothing matters"))
    assert after.ignored == 1 and after.pending_suggestion is None
    taken = advance(state, said("I tried the walk, it helped a bit", tone="concern"))
    assert taken.ignored == 0
    failed = settle(advance(SessionState(), said("hi")), "hi", "You might try a walk.", "failed")
    assert failed.pending_suggestion is None  # a failed reply's suggestion was never seen whole


def test_a_follow_up_inherits_the_previous_intent() -> None:
    classifier = IntentClassifier()
    assert hint(SessionState(), "and the other one?") is None  # nothing before the first turn
    first = classifier.classify("my python script crashes with a KeyError in the parser")
    state = advance(
        SessionState(),
        MessageReading("my python script ...", "conversational", first.intent, first.confidence),
    )
    previous = hint(state, "and the other one?")
    assert previous is not None and previous.is_follow_up and previous.previous_intent == "technical_help"
    follow_up = classifier.refine(classifier.classify("and the other one?", previous), previous)
    assert follow_up.intent == "technical_help"


def test_open_questions_and_topics_reach_the_summary_but_not_the_message_itself() -> None:
    state = settle(SessionState(), "Where did I park?", "I don't know.", "complete")
    state = advance(
        state,
        MessageReading(
            "Where did I park?", "conversational", "factual_recall", 0.7, ("parking",), ("Who is Jo?",)
        ),
    )
    shown = summary(state, "recalling", exclude="Where did I park?")
    assert shown.open_questions == ("Who is Jo?",) and shown.topics == ("parking",)
    assert state.open_questions == ("Where did I park?", "Who is Jo?")


def test_the_in_memory_store_keeps_sessions_apart() -> None:
    store = InMemorySessionStates()
    assert store.load("a") is None
    store.update("a", lambda s: advance(s, said("help", tone="crisis")))
    assert store.load("b") is None
    stored = store.load("a")
    assert stored is not None and stored.escalation_state == "grounding_presence"


def test_readings_that_ask_twice_raise_the_sessions_escalation_and_keep_why() -> None:
    asking = MessageReading(
        "so tired of it all, said my goodbyes", "concern", "emotional_support", 0.8, unsure=True
    )
    once = advance(SessionState(), asking)
    assert (once.last_tone, once.last_unsure_turn, once.escalation_reason) == ("concern", 1, "")
    twice = advance(advance(once, said("ok", "conversational", "general")), asking)
    assert (twice.last_tone, twice.in_episode, twice.last_unsure_turn) == ("elevated", True, 3)
    assert twice.escalation_reason.startswith("possible risk heard again")
    assert directive_for(twice).instructions
