"""A request for a reminder, read from the message when the embedded model answers (it cannot call tools).

"Remind me on Thursday at 9 to call the dentist" becomes the same proposal a capable model would make: a
`set_reminder` call the user approves, with the moment read ("Remind you Thu 10 Dec 2026 at 09:00: call
the dentist"). A request without a usable time gets the question instead ("When should I remind you to
call the dentist?"), never a guessed time. Only a message that *asks* for a reminder is read here: one that
starts with "remind me", "set a reminder", "can you remind me", …
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime

from core.errors import ToolRetry
from core.events import Done, RunEvent, TextDelta, ToolProposal
from core.schedule.when import find_when
from core.tools.base import Tool
from core.types import Message, ToolCall

REMINDER_MODEL = "daemon-tools (direct)"
_ASKS = re.compile(
    r"^\W*(?:(?:hey|hi|ok|okay|so|please|daemon)\W+)*(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
    r"(?:please\s+)?(?P<verb>remind me|set (?:me )?(?:a|an) (?:reminder|alarm)|add (?:a|an) reminder|"
    r"create (?:a|an) reminder|don'?t let me forget)\b",
    re.I,
)
_TO = re.compile(r"\s(?:to|that|about)\s", re.I)
# Time words the grammar does not take as a reminder's time: left beside a time phrase, they mean the
# phrase was not the whole time ("yesterday at 9"), so the user is asked.
_STRAY = re.compile(r"\b(?:yesterday|ago|last|next|this|coming|o'?clock)\b", re.I)
_LEAD = re.compile(r"^\W*(?:(?:to|that|about|of|for|i need to|i have to|i should)\s+)+", re.I)


@dataclass(frozen=True)
class ReminderRequests:
    """Reads reminder requests against `tool` (the `set_reminder` tool) in the user's time at `now()`."""

    tool: Tool
    now: Callable[[], datetime]

    def agent_for(self, text: str) -> ReminderAgent | None:
        """The agent when `text` asks for a reminder (a proposal, or the question to ask); else None."""
        asked = _ASKS.match(" ".join(text.split()))
        if asked is None:
            return None
        request = " ".join(text.split())[asked.end() :].strip(" ?!.")
        before, after = _split_at_to(request)
        if before:  # "remind me <when> to <what>": every word before "to" is the time
            phrase, what = before, _what(after)
        else:
            found = find_when(request, self.now())
            phrase, what = (found.phrase, _what(found.rest)) if found else ("", _what(request))
            if found and _STRAY.search(found.rest):  # "pay rent yesterday at 9": a time word left unread
                phrase = request
        if not what:
            return ReminderAgent(answer="What should I remind you of, and when?")
        if not phrase:
            return ReminderAgent(answer=f"When should I remind you to {what}?")
        call = ToolCall("direct_1", self.tool.name, {"what": what, "when": phrase})
        try:
            preview = self.tool.describe_call(call.arguments)
        except ToolRetry as unusable:
            question = str(unusable).split(" Ask the user")[0]
            return ReminderAgent(answer=question)
        answer = f"I can set this reminder: {preview}. Approve it and I will."
        return ReminderAgent(answer=answer, proposal=ToolProposal(call, self.tool.description, preview))


def _split_at_to(request: str) -> tuple[str, str]:
    """("on Thursday at 9", "call the dentist") from "on Thursday at 9 to call the dentist"; ("", request)
    when nothing comes before the first "to"/"that"/"about"."""
    match = _TO.search(request)
    if match is None or _LEAD.match(request):  # "to go to the dentist at 9": the time is not before it
        return "", request
    return request[: match.start()].strip(" ,"), request[match.end() :]


def _what(words: str) -> str:
    """What to be reminded of, without the request's own words ("to", "that", "about")."""
    return _LEAD.sub("", words).strip(" ,;.!?")


class ReminderAgent:
    """Plays the turn as the agent loop would: the proposal (if any), then the reply."""

    def __init__(self, answer: str, proposal: ToolProposal | None = None) -> None:
        self.answer = answer
        self.proposal = proposal

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        """The known reply, whatever the messages (they were built for the model this replaces)."""
        record: list[dict[str, object]] = []
        if self.proposal is not None:
            yield self.proposal
            call = self.proposal.call
            record = [{"name": call.name, "arguments": dict(call.arguments), "ok": True, "proposed": True}]
        yield TextDelta(self.answer)
        yield Done(
            answer=self.answer,
            model=REMINDER_MODEL,
            tool_calls=tuple(record),
            extra={"mode": "reminder_request"},
        )
