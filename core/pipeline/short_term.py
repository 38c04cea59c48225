"""Short-term context: what the last turns of a session tell about the next message, heuristically.

The session's state (`core.pipeline.session_state`) keeps the previous turn's intent and confidence (so a
low-confidence follow-up such as "and the second one?" inherits it), the recent topics and the user's
questions that are still open (the turn failed, or the reply said it did not know); the helpers here update
those, and read the message's relation to what came before: correcting an earlier statement, recalling
something, continuing, or starting something new. With a capable model configured,
`core.pipeline.rewrite` refines the relation and open questions; this is the offline path.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_CORRECTING = re.compile(
    r"^\s*(no[,.!]|nope|actually\b|wait[,.]|sorry,? i meant|i meant\b|correction\b|that's (wrong|not right))"
    r"|\b(not anymore|no longer|i mis(spoke|typed)|let me correct)\b",
    re.IGNORECASE,
)
_RECALLING = re.compile(
    r"\b(remember|recall|you said|i (told|mentioned|said)|earlier|last time|we (talked|discussed)|"
    r"did i (tell|mention)|remind me what)\b",
    re.IGNORECASE,
)
_CONTINUING = re.compile(
    r"^\s*(and|also|so|but|then|what about|how about|why|ok(ay)?,?|yes|yeah|sure|go on|more)\b"
    r"|\b(that|this|it|those|the (first|second|last|other) one)\s*\??\s*$",
    re.IGNORECASE,
)


def relation_of(text: str) -> str:
    """How a message relates to the conversation so far: correcting, recalling, continuing or new."""
    if _CORRECTING.search(text):
        return "correcting"
    if _RECALLING.search(text):
        return "recalling"
    if _CONTINUING.search(text) or len(text.split()) <= 3:
        return "continuing"
    return "new"


_QUESTION = re.compile(
    r"\?\s*$|^\s*(who|what|when|where|why|how|which|whose|is|are|was|were|do|does|did|can|could|should|"
    r"would|will|have|has)\b",
    re.IGNORECASE,
)
_UNSURE_REPLY = re.compile(
    r"\b(i (don't|do not|can't|cannot) (know|remember|recall|find|tell)|i'm not sure|i am not sure|"
    r"i have no (information|record|memory)|no idea)\b",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    return bool(_QUESTION.search(text.strip()))


def leaves_question_open(answer: str, status: str) -> bool:
    """True when a reply did not answer: the turn failed or was cancelled, was empty, or said it did
    not know."""
    return status != "complete" or not answer.strip() or bool(_UNSURE_REPLY.search(answer[:400]))


@dataclass(frozen=True)
class ShortTermSummary:
    """What the recent turns are about, what is still unanswered, and how the message relates to them."""

    relation: str = "new"
    topics: tuple[str, ...] = ()
    open_questions: tuple[str, ...] = ()

    def render(self) -> str:
        """Prompt lines for the short-term context ("" when there is nothing worth saying)."""
        lines = []
        if self.topics:
            lines.append(f"Recent topics: {', '.join(self.topics)}.")
        if self.open_questions:
            quoted = "; ".join(f'"{q}"' for q in self.open_questions)
            lines.append(f"Still unanswered from earlier: {quoted}.")
        if self.relation == "correcting":
            lines.append("The user is correcting something said earlier: prefer the correction.")
        elif self.relation == "recalling":
            lines.append("The user is asking about something from the past: rely on the memories shown.")
        return "\n".join(lines)


def _key(question: str) -> str:
    return " ".join(question.lower().split())


def merge_topics(new: Sequence[str], old: Sequence[str], limit: int) -> tuple[str, ...]:
    """The session's recent topics after a message: the message's first, then the older ones, no repeats."""
    return tuple(dict.fromkeys([*new, *old]))[:limit]


def open_after_turn(
    open_questions: Sequence[str], question: str, answer: str, status: str, limit: int
) -> tuple[str, ...]:
    """The unanswered questions after a turn: one the reply left open is kept (the newest `limit`); asking
    it again and getting an answer closes it. A message that is not a question changes nothing."""
    if not is_question(question):
        return tuple(open_questions)
    kept = [q for q in open_questions if _key(q) != _key(question)]
    if leaves_question_open(answer, status):
        kept.append(question.strip())
    return tuple(kept[-limit:])


def with_open(open_questions: Sequence[str], found: Sequence[str], limit: int) -> tuple[str, ...]:
    """Add questions another reader (the LLM refinement) found unanswered in the recent turns."""
    known = {_key(q) for q in open_questions}
    fresh = [q.strip() for q in found if q.strip() and _key(q) not in known]
    return tuple([*open_questions, *fresh][-limit:])
