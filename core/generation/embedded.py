"""Which part answers a turn when the embedded model is the one chosen.

SmolLM2-135M can word a short reply to small talk; it cannot use tools, recall the user's memory or read a
document, and given the memory-laden prompt it continues it ("Hi! I'm Maya Lindqvist and I'm here to
help you"). So for it, in order:

1. a time, unit or arithmetic question is answered by the tool itself (`direct_tools.py`), and a request
   for a reminder, a to-do or a note becomes the proposal the user approves (`action_requests.py`);
2. "What do you remember about me?" is answered with the current facts, grouped (`told.py`);
3. a question about the user, their people or their documents is answered from memory (`extractive.py`);
4. a statement that tells facts is acknowledged with them ("I'll remember that you live in Gothenburg");
5. a message in distress or of grief gets a short, plain line of care (the tone reading's support text
   follows it);
6. a greeting, thanks, goodbye or "how are you" gets its one right answer (`social_reply`);
7. only what is left, general questions and requests, reaches the model: with a short prompt that holds
   no memory to copy, a short budget, and its reply cut to whole sentences that name no one the user did
   not (`SmallTalk`), then checked for someone else's facts handed to the user.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from core.events import Done, RunEvent, TextDelta
from core.generation.action_requests import ActionRequests
from core.generation.direct_tools import DirectToolAgent, DirectTools
from core.generation.extractive import (
    EXTRACTIVE_MODEL,
    AnsweredAgent,
    ExtractiveRecall,
    prompt_markers,
)
from core.generation.told import Told, acknowledgement, asks_for_summary, summary, told_from_extracted
from core.own_name import user_names
from core.ports import FactExtractor, FactView
from core.prompt.assembly import AssembledPrompt
from core.turn_context import TurnContext
from core.types import Message

if TYPE_CHECKING:
    from core.orchestrator import Agent

# SmolLM2's own style of system prompt: a longer one, or one about the user, makes it talk about itself
# or offer condolences to "hello there" (tried on a dozen messages at temperatures 0, 0.2 and 0.7).
SMALL_TALK_PROMPT = "You are a helpful AI assistant named Daemon."
SMALL_TALK_TOKENS = 60
SMALL_TALK_SENTENCES = 2
FALLBACK = "I'm here. What would you like to talk about?"
BUILT_IN = "daemon (built-in reply)"  # the `model` of a reply no model wrote: social formulas, care
CARE = "I'm sorry it's hard right now. I'm here, and I'm listening."
_DISTRESS = frozenset({"concern", "elevated", "crisis"})
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]+(?:\s[A-Z][a-z]+)*")
_OWN_WORDS = frozenset({"I", "Daemon", "AI", "OK"})
_PERSONAL = re.compile(r"\b(?:you|your|yours|user|I|I'm|me|my|mine|we|our)\b", re.I)


class EmbeddedAnswers:
    """The orchestrator's `RecallAnswerer` for the embedded model (see the module docstring).

    Args:
        recall: the extractive answerer's hook (recall questions, and the attribution check).
        extractor: reads the facts a statement tells (the app's fact extractor); None: no acknowledgement.
        tools: the built-in tools' direct answers.
        reminders: reads "remind me …", "add … to my to-dos", "make a note …" into proposals (None: none).
    """

    def __init__(
        self,
        recall: ExtractiveRecall,
        extractor: FactExtractor | None = None,
        tools: DirectTools | None = None,
        reminders: ActionRequests | None = None,
    ) -> None:
        self._recall = recall
        self._extractor = extractor
        self._tools = tools or DirectTools()
        self._reminders = reminders

    def agent_for(self, context: TurnContext, prompt: AssembledPrompt, agent: Agent) -> Agent:
        """The agent for this turn: a tool's answer, memory's, or the model's checked short reply."""
        if (done := self._tools.answer(context.text)) is not None:
            return DirectToolAgent(done)
        if self._reminders is not None and (request := self._reminders.agent_for(context.text)) is not None:
            return request
        if asks_for_summary(context.text):
            return AnsweredAgent(
                _memory_done(summary(_told(context.profile), prompt_markers(prompt)), "summary")
            )
        if (done := self._recall.answered(context, prompt)) is not None:
            return AnsweredAgent(done)
        asking = context.text.rstrip().endswith("?") or (
            context.analysis is not None and context.analysis.speech_act == "question"
        )
        tone = context.analysis.tone if context.analysis else "conversational"
        intent = context.analysis.intent if context.analysis else ""
        if tone in _DISTRESS or intent == "emotional_support":
            return AnsweredAgent(Done(answer=CARE, model=BUILT_IN, extra={"mode": "care"}))
        if not asking and (reply := self._acknowledged(context.text)):
            return AnsweredAgent(_memory_done(reply, "acknowledgement"))
        if (reply := social_reply(context.text, user_names(context.profile))) is not None:
            return AnsweredAgent(Done(answer=reply, model=BUILT_IN, extra={"mode": "social"}))
        return self._recall.checked(context, prompt, SmallTalk(agent, context.text))

    def _acknowledged(self, text: str) -> str | None:
        if self._extractor is None:
            return None
        facts = [
            told_from_extracted(f.subject, f.predicate, f.object, ended=f.ended)
            for f in self._extractor.extract(text)
            if not f.negated
        ]
        return acknowledgement(facts)


def _told(profile: Sequence[FactView]) -> list[Told]:
    return [
        Told(f.subject, f.predicate, f.object, f.category, f.id) for f in profile if f.status == "current"
    ]


def _memory_done(text: str, mode: str) -> Done:
    return Done(answer=text, model=EXTRACTIVE_MODEL, extra={"mode": mode, "answered_by": "memory"})


_SOCIAL = (  # (a whole message of this kind, the reply; "{name}" is ", Maya" when the name is known)
    (
        r"(?:hi|hello|hey|hiya|howdy|yo|good (?:morning|afternoon|evening|day))(?: there| daemon| again)?",
        "Hello{name}! What's on your mind?",
    ),
    (
        r"(?:thanks|thank you|thx|ty|cheers|many thanks|thanks a lot|thank you so much)(?: daemon)?",
        "You're welcome{name}!",
    ),
    (
        r"(?:bye|goodbye|good night|see you|see ya|later|talk later|see you later)(?: daemon)?",
        "Goodbye{name}! I'll remember what we talked about.",
    ),
    (
        r"(?:how are you|how are you doing|how's it going|how is it going|how are things)(?: today| daemon)?",
        "I'm well, thank you for asking. How are you?",
    ),
)
_SOCIAL_PATTERNS = tuple((re.compile(rf"^\W*{words}\W*$", re.I), reply) for words, reply in _SOCIAL)


def social_reply(text: str, names: Sequence[str] = ()) -> str | None:
    """The reply to a message that is only a greeting, thanks, goodbye or "how are you" (None for any
    other): these have one right answer, and the tiny model gets even them wrong ("thanks!" -> "I'm sorry
    for your loss")."""
    message = " ".join(text.split())
    name = f", {names[0].split()[0]}" if names else ""
    for pattern, reply in _SOCIAL_PATTERNS:
        if pattern.match(message):
            return reply.format(name=name)
    return None


class SmallTalk:
    """The embedded model on a short prompt with no memory in it, its reply held back and trimmed."""

    def __init__(self, agent: Agent, text: str) -> None:
        self._agent = agent
        self._text = text

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        """The model's reply to the user's message alone, trimmed (`trimmed`)."""
        short = [Message("system", SMALL_TALK_PROMPT), Message("user", self._text)]
        budget = min(max_tokens or SMALL_TALK_TOKENS, SMALL_TALK_TOKENS)
        held: list[str] = []
        async for event in self._agent.run(short, cancel=cancel, max_tokens=budget):
            if isinstance(event, TextDelta):
                held.append(event.text)
                continue
            if isinstance(event, Done):
                answer = trimmed(event.answer or "".join(held), self._text)
                yield TextDelta(answer)
                yield replace(event, answer=answer, extra={**event.extra, "mode": "small_talk"})
                return
            yield event


def trimmed(reply: str, said: str) -> str:
    """At most `SMALL_TALK_SENTENCES` whole sentences of `reply`, none repeated, and none that speaks of
    the user or of itself as a person while naming someone or something the user's message (`said`) does
    not: a tiny model invents people, places and itself as the user ("I'm Maya Lindqvist", "your dog, a
    grey cat"). Nothing left: a plain line that invents nothing."""
    kept: list[str] = []
    for match in _SENTENCE.finditer(reply):
        sentence = " ".join(match.group().split())
        if not sentence or sentence.lower() in (k.lower() for k in kept) or sentence[-1] not in ".!?":
            continue  # a repeat, or cut off mid-sentence by the budget
        names = {name for name in _NAME.findall(sentence) if name not in _OWN_WORDS}  # not its first word
        personal = bool(_PERSONAL.search(sentence))  # of the user, or the model speaking as a person
        if personal and any(name.lower() not in said.lower() for name in names):
            continue
        kept.append(sentence)
        if len(kept) == SMALL_TALK_SENTENCES:
            break
    return " ".join(kept) or FALLBACK
