"""Never hand the user a fact told of someone else.

A small model given "my tortoise is named Sir Reginald" in its context may answer "the user's name is Sir
Reginald". A sentence of a reply is **misattributed** when it names a value that memory holds for another
subject (someone or something the user told about: the tortoise's name, a sister's job), speaks of the
user ("you", "your", "the user") and never names that other subject. `AttributionChecked` runs a model that
is known to do this with its reply held back: the finished reply is checked, and a misattributed one is
replaced by the extractive answer to the question (or, with none, loses those sentences) before the user
sees any of it. The embedded model answers in a few seconds, so holding its reply back costs little.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from core.events import Done, RunEvent, TextDelta
from core.ports import FactView
from core.relations import USER_ID, normalize
from core.types import Message

if TYPE_CHECKING:
    from core.orchestrator import Agent

NOT_SURE = "I'm not sure."  # what is left when every sentence of a reply was someone else's fact
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_USER_WORDS = re.compile(r"\b(?:you|your|yours|yourself|you're|user|user's)\b", re.I)
_SUBJECT_STOP = frozenset({"my", "our", "the", "a", "an", "his", "her", "their"})


def misattributed(answer: str, facts: Sequence[FactView]) -> list[str]:
    """The sentences of `answer` that give the user a value memory holds for another subject."""
    current = [fact for fact in facts if fact.status == "current"]
    users = {normalize(fact.object) for fact in current if fact.subject == USER_ID} | {USER_ID}
    others = [  # (value, words naming its subject) of every value held for someone else, not the user too
        (value, [word for word in normalize(fact.subject).split() if word not in _SUBJECT_STOP])
        for fact in current
        if fact.subject != USER_ID and (value := normalize(fact.object)) and value not in users
    ]
    wrong = []
    for sentence in (match.group().strip() for match in _SENTENCE.finditer(answer)):
        if not sentence or not _USER_WORDS.search(sentence):
            continue
        said = f" {normalize(sentence)} "
        if any(
            f" {value} " in said and not any(f" {word} " in said for word in subject)
            for value, subject in others
        ):
            wrong.append(sentence)
    return wrong


class AttributionChecked:
    """Runs `agent` with its reply held back, then checks it (see the module docstring).

    `answer` gives the extractive answer to the turn's question (None when memory holds none)."""

    def __init__(self, agent: Agent, facts: Sequence[FactView], answer: Callable[[], str | None]) -> None:
        self._agent = agent
        self._facts = facts
        self._answer = answer

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        """The agent's events, its text deltas held back until its `Done`, whose answer is checked."""
        held: list[str] = []
        async for event in self._agent.run(messages, cancel=cancel, max_tokens=max_tokens):
            if isinstance(event, TextDelta):
                held.append(event.text)
                continue
            if isinstance(event, Done):
                answer = await asyncio.to_thread(self._checked, event.answer or "".join(held))
                if answer:
                    yield TextDelta(answer)
                yield replace(event, answer=answer)
                return
            yield event
        if held:  # the run ended without Done (cancelled, dropped): what it said, checked
            yield TextDelta(self._checked("".join(held)))

    def _checked(self, answer: str) -> str:
        wrong = misattributed(answer, self._facts)
        if not wrong:
            return answer
        extractive = self._answer()
        if extractive:
            return extractive
        kept = answer
        for sentence in wrong:
            kept = kept.replace(sentence, "")
        return " ".join(kept.split()) or NOT_SURE
