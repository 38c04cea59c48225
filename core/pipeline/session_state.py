"""A session's state between turns, as pure steps: a message advances it, the reply settles it.

`advance` is what reading one message does: the escalation FSM steps with the message's tone (and whether
it took up the last reply's suggestion), the tone history and the short-term context record it. `settle` is
what the reply adds: the suggestion the next message may take up, the questions the reply left open. Both
return a new `SessionState` and store nothing. The orchestrator's turn path stores `settle(advance(...))` in
one transaction; `prompt` and `analyze` call `advance` on the stored state to show what a turn would see,
and store nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

from core.pipeline.escalation import (
    DEFAULT_CONFIG,
    EscalationConfig,
    EscalationDirective,
    EscalationSnapshot,
    EscalationState,
    EscalationTracker,
    directive,
    suggestion_words,
)
from core.pipeline.intent import StmHint
from core.pipeline.short_term import ShortTermSummary, merge_topics, open_after_turn, relation_of, with_open
from core.pipeline.tone import ToneLevel
from core.ports import SessionState

MAX_TONES = 10  # tone levels kept per session: enough to see an episode, small enough to store every turn
MAX_TOPICS = 8
MAX_OPEN = 3


@dataclass(frozen=True)
class MessageReading:
    """What the context pipeline read from one message: everything the session's state advances by."""

    text: str
    tone: str
    intent: str
    confidence: float
    topics: tuple[str, ...] = ()
    open_questions: tuple[str, ...] = ()  # earlier questions the LLM refinement found unanswered
    unsure: bool = False  # the tone reading asks: risk heard by the tone head, not said in words


def escalation_snapshot(state: SessionState) -> EscalationSnapshot:
    """The FSM snapshot a stored state holds."""
    return EscalationSnapshot(
        EscalationState(state.escalation_state),
        ToneLevel.parse(state.last_tone),
        state.distress_streak,
        state.calm_streak,
        state.ignored,
        state.in_episode,
        state.turns,
        state.last_unsure_turn,
        state.escalation_reason,
    )


def advance(
    state: SessionState, reading: MessageReading, config: EscalationConfig = DEFAULT_CONFIG
) -> SessionState:
    """The state after one user message (before its reply)."""
    pending = frozenset(state.pending_suggestion) if state.pending_suggestion is not None else None
    tracker = EscalationTracker(config, escalation_snapshot(state), pending)
    tracker.update_from_message(reading.tone, reading.text, reading.unsure)
    after = tracker.snapshot
    same = after.state.value == state.escalation_state
    return replace(
        state,
        escalation_state=after.state.value,
        turns_in_state=state.turns_in_state + 1 if same else 1,
        last_tone=after.last_tone.value,
        distress_streak=after.distress_streak,
        calm_streak=after.calm_streak,
        ignored=after.ignored,
        in_episode=after.in_episode,
        pending_suggestion=None,  # the message has answered (or ignored) the last suggestion
        tones=(*state.tones, after.last_tone.value)[-MAX_TONES:],
        intent=reading.intent,
        confidence=reading.confidence,
        topics=merge_topics(reading.topics, state.topics, MAX_TOPICS),
        open_questions=with_open(state.open_questions, reading.open_questions, MAX_OPEN),
        turns=after.turns,
        last_unsure_turn=after.last_unsure_turn,
        escalation_reason=after.reason,
    )


def settle(state: SessionState, question: str, answer: str, status: str) -> SessionState:
    """The state after the reply to `question`: a complete reply's suggestion waits for the next message
    (a failed or cancelled one suggested nothing the user saw whole); an unanswered question stays open."""
    words = suggestion_words(answer) if status == "complete" else None
    return replace(
        state,
        pending_suggestion=tuple(sorted(words)) if words is not None else None,
        open_questions=open_after_turn(state.open_questions, question, answer, status, MAX_OPEN),
    )


def directive_for(state: SessionState, config: EscalationConfig = DEFAULT_CONFIG) -> EscalationDirective:
    """The reply budget and stance the state asks for."""
    return directive(escalation_snapshot(state), config)


def hint(state: SessionState, text: str) -> StmHint | None:
    """What the previous turn says about `text` (None at the start of a session)."""
    if not state.turns:
        return None
    return StmHint(state.intent, state.confidence, is_follow_up=relation_of(text) == "continuing")


def summary(state: SessionState, relation: str, *, exclude: str = "") -> ShortTermSummary:
    """The short-term context a message sees (`exclude`: the message itself, not shown as open)."""
    questions = tuple(q for q in state.open_questions if q.strip() != exclude.strip())
    return ShortTermSummary(relation, state.topics, questions)


class InMemorySessionStates:
    """A `SessionStateStore` that forgets on exit: tests, and front ends with no data dir to write."""

    def __init__(self) -> None:
        self._states: dict[str, SessionState] = {}
        self._lock = threading.Lock()

    def load(self, session_id: str) -> SessionState | None:
        with self._lock:
            return self._states.get(session_id)

    def update(self, session_id: str, change: Callable[[SessionState], SessionState]) -> SessionState:
        with self._lock:
            state = self._states[session_id] = change(self._states.get(session_id) or SessionState())
            return state
