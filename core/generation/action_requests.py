"""Requests for an action, read from the message when the embedded model answers (it cannot call tools).

"Remind me on Thursday at 9 to call the dentist" becomes the same proposal a capable model would make: a
`set_reminder` call the user approves, with the moment read ("Remind you Thu 10 Dec 2026 at 09:00: call
the dentist"). A request without a usable time gets the question instead ("When should I remind you to
call the dentist?"), never a guessed time. "Add renewing my passport to my to-do list" and "make a note
that the spare key is with Maya" become `add_todo` and `add_note` proposals. Only a message that *asks*
for the action is read here: the whole message must be the request ("remind me …", "add … to my to-do
list", "make a note: …"); a sentence that merely mentions reminders or notes goes on to the other readers.
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

ACTION_MODEL = "daemon-tools (direct)"
_ASKING = r"(?:(?:can|could|would|will) you\s+(?:please\s+)?)?(?:please\s+)?"  # how a request is put
_ASKS = re.compile(
    r"^\W*(?:(?:hey|hi|ok|okay|so|please|daemon)\W+)*"
    + _ASKING
    + r"(?P<verb>remind me|set (?:me )?(?:a|an) (?:reminder|alarm)|add (?:a|an) reminder|"
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

    def agent_for(self, text: str) -> ProposalAgent | None:
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
            return ProposalAgent(answer="What should I remind you of, and when?")
        if not phrase:
            return ProposalAgent(answer=f"When should I remind you to {what}?")
        return _proposed(
            self.tool,
            {"what": what, "when": phrase},
            "I can set this reminder",
            lambda unusable: str(unusable).split(" Ask the user")[0],  # the time's own question
        )


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


class ProposalAgent:
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
            model=ACTION_MODEL,
            tool_calls=tuple(record),
            extra={"mode": "action_request"},
        )


_TODO = re.compile(
    r"^\W*(?:(?:hey|ok|okay|so|please|daemon)\W+)*" + _ASKING + r"(?:"
    r"(?:add|put|write)\s+(?P<what>.+?)\s+(?:to|on|onto)\s+(?:my\s+)?(?:to-?do|todo|to do)(?:\s+list|s)?"
    r"|add\s+(?:a\s+)?(?:to-?do|todo)\s*[:,-]?\s+(?P<item>.+?)"
    r")(?:\W+(?:please|thanks|thank you))?\W*$",
    re.I,
)
_NOTE = re.compile(
    r"^\W*(?:(?:hey|ok|okay|so|please|daemon)\W+)*"
    + _ASKING
    + r"(?:make|take|keep|add)\s+a\s+note\s*(?:that|of|:|,|-)?\s+(?P<what>.+?)"
    r"(?:\W+(?:please|thanks|thank you))?\W*$",
    re.I,
)


@dataclass(frozen=True)
class NotebookRequests:
    """Reads "add … to my to-do list" and "make a note that …" against the notebook's tools."""

    add_todo: Tool
    add_note: Tool

    def agent_for(self, text: str) -> ProposalAgent | None:
        message = " ".join(text.split())
        if todo := _TODO.match(message):
            return self._propose(self.add_todo, (todo["what"] or todo["item"] or "").strip(" .!?"))
        if note := _NOTE.match(message):
            return self._propose(self.add_note, note["what"].strip(" .!?"))
        return None

    @staticmethod
    def _propose(tool: Tool, text: str) -> ProposalAgent:
        return _proposed(tool, {"text": text}, "I can do this", lambda _: "What should I write down?")


@dataclass(frozen=True)
class ActionRequests:
    """Every reader of action requests, in order; the first that reads the message answers it."""

    readers: tuple[ReminderRequests | NotebookRequests, ...]

    def agent_for(self, text: str) -> ProposalAgent | None:
        for reader in self.readers:
            if (agent := reader.agent_for(text)) is not None:
                return agent
        return None


def _proposed(
    tool: Tool, arguments: dict[str, object], lead: str, asked: Callable[[ToolRetry], str]
) -> ProposalAgent:
    """The proposal of `tool` with `arguments`, said in the tool's own words after `lead`; when the tool
    refuses them, the question `asked` makes of its reason, and no proposal."""
    call = ToolCall("direct_1", tool.name, arguments)
    try:
        preview = tool.describe_call(call.arguments)
    except ToolRetry as unusable:
        return ProposalAgent(answer=asked(unusable))
    return ProposalAgent(
        answer=f"{lead}: {preview}. Approve it and I will.",
        proposal=ToolProposal(call, tool.description, preview),
    )
