"""Escalation FSM: how the assistant's stance changes over a distressing conversation.

Four states:

- ``validate_and_suggest`` (default): answer normally; under concern/elevated tone, validate first and offer
  at most one or two gentle suggestions.
- ``grounding_presence``: distress has lasted (``sustained_turns`` elevated/crisis turns in a row) or the user
  is in crisis: short, steady replies, one grounding step, no problem-solving.
- ``quiet_companionship``: the user keeps not taking up suggestions (``ignored_limit`` of them during a
  distress episode): stop suggesting, stay brief and present. Sticky while the distress continues (a crisis
  turn still moves to grounding presence, which carries the safety guidance).
- ``gentle_reengagement``: calm turns after an episode: follow the user's lead, check in lightly. After
  ``calm_turns`` calm turns the episode ends and the state returns to the default.

"Distressed" means tone ``elevated`` or ``crisis``; ``concern`` and ``conversational`` count as calm. A
concern reading that asks (the tone head heard risk the words do not say) counts as calm once; a second one
within ``unsure_window`` turns counts as distress: the session's escalation rises on repetition, not on one
uncertain reading. Each step records its reason (``analyze --explain`` shows it).

Usage, pure: ``snapshot = step(snapshot, tone, ignored)`` then ``directive(snapshot)``. Usage, per session:
one :class:`EscalationTracker` per session — ``tracker.observe_reply(reply)`` after each assistant reply,
then ``tracker.update_from_message(tone, text)`` on the next user turn, which works out whether the user
ignored the suggestion. Everything is plain Python on a few integers, cheap enough to run on every request
path. A session's snapshot is stored between turns by ``core.pipeline.session_state`` (plain fields).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType

from core.pipeline.tone import ToneLevel


class EscalationState(StrEnum):
    """The four FSM states; the value is the name used in prompts and logs."""

    VALIDATE_AND_SUGGEST = "validate_and_suggest"
    GROUNDING_PRESENCE = "grounding_presence"
    QUIET_COMPANIONSHIP = "quiet_companionship"
    GENTLE_REENGAGEMENT = "gentle_reengagement"


@dataclass(frozen=True)
class EscalationConfig:
    """Thresholds and response budgets (tokens) per tone and per state."""

    sustained_turns: int = 3
    unsure_window: int = 3  # a second asking reading within this many turns counts as distress
    ignored_limit: int = 2
    calm_turns: int = 3
    conversational_tokens: int = 600
    concern_tokens: int = 1000
    elevated_tokens: int = 1500
    crisis_tokens: int = 2000
    grounding_tokens: int = 500
    quiet_tokens: int = 300
    gentle_tokens: int = 800


@dataclass(frozen=True)
class EscalationSnapshot:
    """The FSM state of one session after a turn (immutable; ``step`` returns a new one)."""

    state: EscalationState = EscalationState.VALIDATE_AND_SUGGEST
    last_tone: ToneLevel = ToneLevel.CONVERSATIONAL
    distress_streak: int = 0
    calm_streak: int = 0
    ignored: int = 0
    in_episode: bool = False
    turns: int = 0
    last_unsure_turn: int = 0  # the turn of the latest reading that asked (0: none)
    reason: str = ""  # why the state is what it is after this step ("" in the default state)


@dataclass(frozen=True)
class EscalationDirective:
    """What the prompt should do this turn: reply budget and stance instructions ("" = none needed)."""

    state: EscalationState
    max_response_tokens: int
    instructions: str


_DISTRESSED = frozenset({ToneLevel.ELEVATED, ToneLevel.CRISIS})
DEFAULT_CONFIG = EscalationConfig()


def step(
    snapshot: EscalationSnapshot,
    tone: ToneLevel | str,
    user_ignored_suggestion: bool | None,
    config: EscalationConfig = DEFAULT_CONFIG,
    unsure: bool = False,
) -> EscalationSnapshot:
    """Advance the FSM by one user turn.

    ``user_ignored_suggestion``: True when the previous reply offered a suggestion and the user did not engage
    with it, False when they engaged, None when no suggestion was pending. Ignored suggestions only count
    during a distress episode (ordinary technical advice that goes unused is not a signal). ``unsure``: the
    tone reading asks (risk heard, not said); repeated within ``unsure_window`` turns it counts as distress.
    """
    level = ToneLevel.parse(tone)
    turns = snapshot.turns + 1
    last_unsure = turns if unsure else snapshot.last_unsure_turn
    since = turns - snapshot.last_unsure_turn
    repeated = unsure and snapshot.last_unsure_turn > 0 and since <= config.unsure_window
    if repeated and level not in _DISTRESSED:
        level = ToneLevel.ELEVATED
    calm_step = EscalationSnapshot(last_tone=level, turns=turns, last_unsure_turn=last_unsure)
    if level in _DISTRESSED:
        ignored = _count_ignored(snapshot.ignored, user_ignored_suggestion)
        streak = snapshot.distress_streak + 1
        state = _distressed_state(snapshot.state, level, streak, ignored, config)
        reason = _distress_reason(state, level, streak, ignored, bool(repeated), snapshot.last_unsure_turn)
        return replace(
            calm_step, state=state, distress_streak=streak, ignored=ignored, in_episode=True, reason=reason
        )
    calm = snapshot.calm_streak + 1
    if not snapshot.in_episode or calm >= config.calm_turns:
        return calm_step  # the default state
    return replace(
        calm_step,
        state=EscalationState.GENTLE_REENGAGEMENT,
        calm_streak=calm,
        ignored=_count_ignored(snapshot.ignored, user_ignored_suggestion),
        in_episode=True,
        reason=f"{calm} calmer turn{'s' if calm > 1 else ''} after a hard stretch",
    )


def _distress_reason(
    state: EscalationState, level: ToneLevel, streak: int, ignored: int, repeated: bool, earlier: int
) -> str:
    """Why a distressed turn leaves the session in `state`, in words for `analyze --explain`."""
    if level is ToneLevel.CRISIS:
        return "crisis: evidence in the user's words"
    if state is EscalationState.QUIET_COMPANIONSHIP:
        return f"{ignored} suggestions not taken up during distress"
    if state is EscalationState.GROUNDING_PRESENCE:
        return f"distress for {streak} turns in a row"
    if repeated:
        return f"possible risk heard again (first at turn {earlier}): treated as distress"
    return "distress this turn"


def _count_ignored(current: int, ignored: bool | None) -> int:
    if ignored is None:
        return current
    return current + 1 if ignored else 0


def _distressed_state(
    previous: EscalationState, level: ToneLevel, streak: int, ignored: int, config: EscalationConfig
) -> EscalationState:
    if level is ToneLevel.CRISIS:
        return EscalationState.GROUNDING_PRESENCE
    if previous is EscalationState.QUIET_COMPANIONSHIP or ignored >= config.ignored_limit:
        return EscalationState.QUIET_COMPANIONSHIP
    if streak >= config.sustained_turns:
        return EscalationState.GROUNDING_PRESENCE
    return EscalationState.VALIDATE_AND_SUGGEST


_CONCERN_GUIDANCE = (
    "The user sounds stressed or low. Acknowledge the feeling briefly and warmly in your own words, "
    "then help with what they asked. Offer at most one practical suggestion; do not lecture."
)
_ELEVATED_GUIDANCE = (
    "The user is in significant distress. Lead with validation: reflect what they said without "
    "judging, minimising or rushing to fix it. Then offer one or two gentle, concrete options (a slow "
    "breath, a small next step, reaching out to someone they trust) and invite them to say more. "
    "No lists of tips."
)
_GROUNDING_GUIDANCE = (
    "Distress has continued for several turns. Be a steady, calm presence: short sentences, a slow "
    "pace. Acknowledge how hard this is, ask how they are right now, and offer at most one simple "
    "grounding step (slow breathing, naming a few things they can see or hear) if it fits. "
    "Do not problem-solve."
)
_QUIET_GUIDANCE = (
    "The user has not taken up the suggestions offered. Stop suggesting. Keep the reply brief and "
    "warm: reflect what they said, let them know you are here and listening, and ask at most one open "
    "question. Let them lead."
)
_GENTLE_GUIDANCE = (
    "The user seems calmer after a hard stretch. Follow their lead. You may check in lightly, once, "
    "on how they are doing, without dwelling on it; it is fine to move on to whatever they bring up."
)
_TONE_GUIDANCE: MappingProxyType[ToneLevel, str] = MappingProxyType(
    {ToneLevel.CONCERN: _CONCERN_GUIDANCE, ToneLevel.ELEVATED: _ELEVATED_GUIDANCE}
)
_STATE_GUIDANCE: MappingProxyType[EscalationState, str] = MappingProxyType(
    {
        EscalationState.GROUNDING_PRESENCE: _GROUNDING_GUIDANCE,
        EscalationState.QUIET_COMPANIONSHIP: _QUIET_GUIDANCE,
        EscalationState.GENTLE_REENGAGEMENT: _GENTLE_GUIDANCE,
    }
)
_CRISIS_GUIDANCE = (
    "The user may be at risk of harm. Stay with them in the conversation and take what they say seriously. "
    "Include the support guidance provided with this turn (local emergency services, a crisis line such as "
    "988 in the US or Samaritans on 116 123 in the UK and Ireland, and a trusted person) once, plainly and "
    "without pressure. Do not promise secrecy, diagnose, or claim to be a professional."
)


def directive(snapshot: EscalationSnapshot, config: EscalationConfig = DEFAULT_CONFIG) -> EscalationDirective:
    """The response budget and instructions for the state (and tone) in ``snapshot``."""
    state, tone = snapshot.state, snapshot.last_tone
    if state is EscalationState.VALIDATE_AND_SUGGEST:
        budgets = {
            ToneLevel.CONVERSATIONAL: config.conversational_tokens,
            ToneLevel.CONCERN: config.concern_tokens,
            ToneLevel.ELEVATED: config.elevated_tokens,
            ToneLevel.CRISIS: config.crisis_tokens,
        }
        tokens, text = budgets[tone], _TONE_GUIDANCE.get(tone, "")
    else:
        tokens = {
            EscalationState.GROUNDING_PRESENCE: config.grounding_tokens,
            EscalationState.QUIET_COMPANIONSHIP: config.quiet_tokens,
            EscalationState.GENTLE_REENGAGEMENT: config.gentle_tokens,
        }[state]
        text = _STATE_GUIDANCE[state]
    if tone is ToneLevel.CRISIS:
        text = f"{text}\n{_CRISIS_GUIDANCE}" if text else _CRISIS_GUIDANCE
    return EscalationDirective(state, tokens, text)


# -- suggestion tracking (for the per-session tracker) --------------------------------------------------
_SUGGESTION = re.compile(
    r"\b(try|consider|you (?:might|could|may want to)|it (?:may|might|could) help|how about|what if you|"
    r"have you (?:tried|thought about)|i(?:'d| would)? (?:suggest|recommend)|one thing that)\b",
    re.IGNORECASE,
)
_ENGAGED = re.compile(
    r"\b(i tried|i did|i'?ll try|i will try|i can try|that helped|it helped|good idea|did that|"
    r"doing that|i'?m trying|let me try|ok(?:ay)?,? i)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z']{4,}")
# fmt: off
_STOP = frozenset({
    "that", "this", "with", "your", "have", "what", "when", "they", "them", "then", "there", "their", "about",
    "would", "could", "might", "maybe", "just", "really", "some", "something", "feel", "feeling", "like",
    "from", "into", "also", "been", "will", "more", "very", "it's", "you're", "don't", "can't",
})
# fmt: on


def suggestion_words(reply: str) -> frozenset[str] | None:
    """Content words of the suggestion sentences in an assistant reply, or None if it suggests nothing."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", reply) if _SUGGESTION.search(s)]
    if not sentences:
        return None
    return frozenset(w for s in sentences for w in _WORD.findall(s.lower()) if w not in _STOP)


def engaged_with(user_text: str, words: frozenset[str]) -> bool:
    """Did the user take up the suggestion (says they tried it, or talks about it: ≥ 2 shared words)?"""
    if _ENGAGED.search(user_text):
        return True
    said = {w for w in _WORD.findall(user_text.lower()) if w not in _STOP}
    return len(said & words) >= 2


@dataclass
class EscalationTracker:
    """The escalation state of one session. Not shared between sessions; not thread-safe by design
    (a session handles one turn at a time)."""

    config: EscalationConfig = field(default_factory=EscalationConfig)
    snapshot: EscalationSnapshot = field(default_factory=EscalationSnapshot)
    pending_suggestion: frozenset[str] | None = None

    def update(
        self, tone: ToneLevel | str, user_ignored_suggestion: bool | None = None, unsure: bool = False
    ) -> EscalationDirective:
        """Advance by one user turn with an explicit ignored-suggestion signal; return the directive."""
        self.snapshot = step(self.snapshot, tone, user_ignored_suggestion, self.config, unsure)
        self.pending_suggestion = None
        return directive(self.snapshot, self.config)

    def update_from_message(
        self, tone: ToneLevel | str, user_text: str, unsure: bool = False
    ) -> EscalationDirective:
        """Advance by one user turn, judging from ``user_text`` whether the last suggestion was taken up."""
        ignored = None
        if self.pending_suggestion is not None:
            ignored = not engaged_with(user_text, self.pending_suggestion)
        return self.update(tone, ignored, unsure)

    def observe_reply(self, reply: str) -> None:
        """Record whether the assistant's reply offered a suggestion the next user turn may take up."""
        self.pending_suggestion = suggestion_words(reply)

    def reset(self) -> None:
        """Back to the default state (e.g. a new session or an explicit user request)."""
        self.snapshot, self.pending_suggestion = EscalationSnapshot(), None

    def current(self) -> EscalationDirective:
        """The directive for the current state without advancing."""
        return directive(self.snapshot, self.config)


__all__ = [
    "DEFAULT_CONFIG",
    "EscalationConfig",
    "EscalationDirective",
    "EscalationSnapshot",
    "EscalationState",
    "EscalationTracker",
    "directive",
    "engaged_with",
    "step",
    "suggestion_words",
]
