"""Short-term context: what the last turns of a session tell about the next message, heuristically.

It keeps, per session, the previous turn's intent and confidence (so a low-confidence follow-up such as
"and the second one?" inherits it), the recent topics and the user's questions that are still open (the
turn failed, or the reply said it did not know), and reads the message's relation to what came before:
correcting an earlier statement, recalling something, continuing, or starting something new. With a
capable model configured, `core.pipeline.rewrite` refines the relation and open questions; this is the
offline path.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.pipeline.intent import StmHint

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


@dataclass
class _Session:
    intent: str = "general"
    confidence: float = 0.0
    topics: list[str] = field(default_factory=list)
    open_questions: list[str] = field(default_factory=list)
    turns: int = 0


class ShortTermMemory:
    """Per session: the previous turn's intent, recent topics and unanswered questions (bounded; least
    recently used sessions are forgotten). Thread-safe: front ends serve sessions concurrently."""

    def __init__(self, max_sessions: int = 1024, *, max_topics: int = 8, max_open: int = 3) -> None:
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._max = max_sessions
        self._max_topics = max_topics
        self._max_open = max_open
        self._lock = threading.Lock()

    def hint(self, session_id: str, text: str) -> StmHint | None:
        """What the previous turn says about `text` (None at the start of a session)."""
        with self._lock:
            last = self._sessions.get(session_id)
            if last is None or not last.turns:
                return None
            return StmHint(last.intent, last.confidence, is_follow_up=relation_of(text) == "continuing")

    def record(
        self, session_id: str, intent: str, confidence: float, topics: tuple[str, ...] = ()
    ) -> None:
        """Remember a message's intent and topics (most recent topics first)."""
        with self._lock:
            state = self._session(session_id)
            state.intent, state.confidence, state.turns = intent, confidence, state.turns + 1
            state.topics = list(dict.fromkeys([*topics, *state.topics]))[: self._max_topics]

    def observe_turn(self, session_id: str, question: str, answer: str, status: str) -> None:
        """Track the user's questions: one the reply left open is kept; asking it again and getting an
        answer closes it."""
        if not is_question(question):
            return
        key = " ".join(question.lower().split())
        with self._lock:
            state = self._session(session_id)
            state.open_questions = [q for q in state.open_questions if " ".join(q.lower().split()) != key]
            if leaves_question_open(answer, status):
                state.open_questions = [*state.open_questions, question.strip()][-self._max_open :]

    def note_open(self, session_id: str, questions: Sequence[str]) -> None:
        """Questions another reader (the LLM refinement) found unanswered in the recent turns."""
        with self._lock:
            state = self._session(session_id)
            known = {" ".join(q.lower().split()) for q in state.open_questions}
            fresh = [q.strip() for q in questions if " ".join(q.lower().split()) not in known and q.strip()]
            state.open_questions = [*state.open_questions, *fresh][-self._max_open :]

    def summary(self, session_id: str, relation: str, *, exclude: str = "") -> ShortTermSummary:
        """The session's short-term context for this message (`exclude`: the message itself)."""
        with self._lock:
            state = self._sessions.get(session_id) or _Session()
            questions = tuple(q for q in state.open_questions if q.strip() != exclude.strip())
            return ShortTermSummary(relation, tuple(state.topics), questions)

    def _session(self, session_id: str) -> _Session:
        state = self._sessions.get(session_id)
        if state is None:
            state = self._sessions[session_id] = _Session()
        self._sessions.move_to_end(session_id)
        while len(self._sessions) > self._max:
            self._sessions.popitem(last=False)
        return state
