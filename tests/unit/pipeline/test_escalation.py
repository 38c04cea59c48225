"""Escalation FSM: transitions from tone history, ignored suggestions and calm turns; directives; the
per-session tracker (sessions' stored state: test_session_state.py)."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from core.pipeline.escalation import (
    EscalationConfig,
    EscalationSnapshot,
    EscalationState,
    EscalationTracker,
    directive,
    engaged_with,
    step,
    suggestion_words,
)
from core.pipeline.tone import ToneLevel

V, G, Q, R = (
    EscalationState.VALIDATE_AND_SUGGEST,
    EscalationState.GROUNDING_PRESENCE,
    EscalationState.QUIET_COMPANIONSHIP,
    EscalationState.GENTLE_REENGAGEMENT,
)


def run(
    turns: Iterable[tuple[str, bool | None]], config: EscalationConfig | None = None
) -> list[EscalationState]:
    snapshot, states = EscalationSnapshot(), []
    for tone, ignored in turns:
        snapshot = step(snapshot, tone, ignored, config or EscalationConfig())
        states.append(snapshot.state)
    return states


def test_default_state_and_plain_conversation() -> None:
    assert EscalationSnapshot().state is V
    assert run([("conversational", None)] * 3) == [V, V, V]
    assert run([("concern", None)] * 4) == [V] * 4


def test_sustained_elevated_tone_moves_to_grounding() -> None:
    assert run([("elevated", None)] * 4) == [V, V, G, G]


def test_crisis_moves_to_grounding_at_once() -> None:
    assert run([("conversational", None), ("crisis", None)]) == [V, G]


def test_ignored_suggestions_lead_to_quiet_companionship() -> None:
    assert run([("elevated", None), ("elevated", True), ("elevated", True)]) == [V, V, Q]


def test_engaging_with_a_suggestion_resets_the_ignored_count() -> None:
    assert run([("elevated", True), ("elevated", False), ("elevated", True)]) == [V, V, G]


def test_quiet_companionship_is_sticky_while_distress_lasts_but_crisis_grounds() -> None:
    turns = [("elevated", True), ("elevated", True), ("elevated", False), ("crisis", None)]
    assert run(turns) == [V, Q, Q, G]


def test_ignored_suggestions_outside_distress_do_not_count() -> None:
    turns = [("conversational", True)] * 5 + [("elevated", None)]
    assert run(turns)[-1] is V


def test_calm_turns_deescalate_through_gentle_reengagement() -> None:
    turns = [("elevated", None)] * 3 + [("conversational", None)] * 3 + [("conversational", None)]
    assert run(turns) == [V, V, G, R, R, V, V]


def test_concern_counts_as_calm() -> None:
    assert run([("crisis", None), ("concern", None), ("concern", None), ("concern", None)]) == [G, R, R, V]


def test_distress_during_reengagement_restarts_the_count() -> None:
    turns = [("elevated", None)] * 3 + [("conversational", None), ("elevated", None)]
    assert run(turns) == [V, V, G, R, V]


def test_thresholds_are_configurable() -> None:
    config = EscalationConfig(sustained_turns=2, calm_turns=1, ignored_limit=1)
    assert run([("elevated", None), ("elevated", None), ("conversational", None)], config) == [V, G, V]
    assert run([("elevated", True)], config) == [Q]


def test_step_is_pure() -> None:
    before = EscalationSnapshot()
    after = step(before, ToneLevel.ELEVATED, None)
    assert before == EscalationSnapshot()
    assert step(before, ToneLevel.ELEVATED, None) == after
    assert (after.distress_streak, after.in_episode, after.turns) == (1, True, 1)


def test_step_accepts_any_tone_spelling() -> None:
    assert step(EscalationSnapshot(), "HIGH", None).state is G
    assert step(EscalationSnapshot(), "crisis_support", None).last_tone is ToneLevel.CRISIS


# -- directives --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tone", "tokens", "has_instructions"),
    [("conversational", 600, False), ("concern", 1000, True), ("elevated", 1500, True)],
)
def test_default_state_directive_follows_tone(tone: str, tokens: int, has_instructions: bool) -> None:
    result = directive(step(EscalationSnapshot(), tone, None))
    assert (result.state, result.max_response_tokens) == (V, tokens)
    assert bool(result.instructions) is has_instructions


@pytest.mark.parametrize(
    ("state", "tokens", "needle"),
    [(G, 500, "grounding"), (Q, 300, "Stop suggesting"), (R, 800, "calmer")],
)
def test_state_directives(state: EscalationState, tokens: int, needle: str) -> None:
    result = directive(EscalationSnapshot(state=state, last_tone=ToneLevel.ELEVATED))
    assert (result.state, result.max_response_tokens) == (state, tokens)
    assert needle in result.instructions


def test_crisis_directive_includes_safety_guidance() -> None:
    result = directive(step(EscalationSnapshot(), ToneLevel.CRISIS, None))
    assert result.state is G
    for needle in ("988", "116 123", "emergency services", "trusted person"):
        assert needle in result.instructions


# -- suggestions and the per-session tracker --------------------------------------------------------------
def test_suggestion_detection() -> None:
    assert suggestion_words("That sounds really hard. I'm here with you.") is None
    words = suggestion_words("That sounds hard. You might try a short walk outside before bed.")
    assert words is not None and {"walk", "outside"} <= words


@pytest.mark.parametrize(
    ("reply", "engaged"),
    [
        ("I tried that yesterday", True),
        ("ok I'll try", True),
        ("a walk outside sounds nice actually", True),
        ("whatever. nothing matters", False),
    ],
)
def test_engagement(reply: str, engaged: bool) -> None:
    words = suggestion_words("You might try a short walk outside.")
    assert words is not None
    assert engaged_with(reply, words) is engaged


def test_tracker_infers_ignored_suggestions_from_messages() -> None:
    tracker = EscalationTracker()
    tracker.update_from_message(ToneLevel.ELEVATED, "everything is falling apart")
    for _ in range(2):
        tracker.observe_reply("I'm sorry. Maybe try writing down what's worrying you?")
        result = tracker.update_from_message(ToneLevel.ELEVATED, "it doesn't matter, nothing helps")
    assert result.state is Q
    assert tracker.current() == result


def test_tracker_without_pending_suggestion_does_not_count_ignored() -> None:
    tracker = EscalationTracker()
    for _ in range(2):
        tracker.observe_reply("That sounds exhausting. I'm here.")
        tracker.update_from_message(ToneLevel.ELEVATED, "yeah")
    assert tracker.snapshot.ignored == 0
    tracker.reset()
    assert tracker.snapshot == EscalationSnapshot()


# -- readings that ask (the tone head heard a risk the words only hint at) ----------------------------------
def asked(turns: Iterable[tuple[str, bool]]) -> list[EscalationSnapshot]:
    snapshot, seen = EscalationSnapshot(), []
    for tone, unsure in turns:
        snapshot = step(snapshot, tone, None, EscalationConfig(), unsure)
        seen.append(snapshot)
    return seen


def test_one_reading_that_asks_does_not_escalate() -> None:
    seen = asked([("concern", True), ("conversational", False), ("conversational", False)])
    assert [s.state for s in seen] == [V, V, V]
    assert seen[0].last_tone is ToneLevel.CONCERN and seen[0].reason == ""


def test_a_second_reading_that_asks_within_the_window_counts_as_distress() -> None:
    seen = asked([("concern", True), ("conversational", False), ("concern", True)])
    assert seen[-1].last_tone is ToneLevel.ELEVATED and seen[-1].in_episode
    assert seen[-1].reason == "possible risk heard again (first at turn 1): treated as distress"
    assert directive(seen[-1]).instructions  # the elevated stance: validate, invite them to say more


def test_readings_that_ask_far_apart_stay_calm() -> None:
    seen = asked([("concern", True), *[("conversational", False)] * 3, ("concern", True)])
    assert seen[-1].last_tone is ToneLevel.CONCERN and not seen[-1].in_episode


def test_evidence_escalates_at_once_and_says_why() -> None:
    seen = asked([("concern", True), ("crisis", False)])
    assert (seen[-1].state, seen[-1].reason) == (G, "crisis: evidence in the user's words")
