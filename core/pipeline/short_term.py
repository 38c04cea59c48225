"""Short-term context: what the last turns of a session tell about the next message, heuristically.

It keeps, per session, the previous turn's intent and confidence (so a low-confidence follow-up such as
"and the second one?" inherits it) and reads the message's relation to what came before: correcting an
earlier statement, recalling something, continuing, or starting something new. An LLM-backed analysis can
replace `relation_of` when a capable provider is configured; this is the offline path.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass

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


@dataclass(frozen=True)
class _Last:
    intent: str
    confidence: float


class ShortTermMemory:
    """The previous turn's intent per session (bounded; least recently used sessions are forgotten)."""

    def __init__(self, max_sessions: int = 1024) -> None:
        self._last: OrderedDict[str, _Last] = OrderedDict()
        self._max = max_sessions
        self._lock = threading.Lock()

    def hint(self, session_id: str, text: str) -> StmHint | None:
        """What the previous turn says about `text` (None at the start of a session)."""
        with self._lock:
            last = self._last.get(session_id)
        if last is None:
            return None
        return StmHint(last.intent, last.confidence, is_follow_up=relation_of(text) == "continuing")

    def record(self, session_id: str, intent: str, confidence: float) -> None:
        with self._lock:
            self._last[session_id] = _Last(intent, confidence)
            self._last.move_to_end(session_id)
            while len(self._last) > self._max:
                self._last.popitem(last=False)
