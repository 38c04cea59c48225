"""Uncertainty retry: when the agent says it does not know something about the user, or answers a question
about the user's past without citing anything retrieved, make it look once.

A small model often answers "I don't remember" about something it was told weeks ago, without calling
the memory search tool. When the user's message is about their own past or facts AND the answer is such
a non-answer, the agent runs once more with a system note telling it to search memory first, and the
retried answer is the one shown. It never retries more than once, and not when the first run already
called the memory tool.

The same evidence rule holds for every model (the embedded one answers such questions extractively, always
cited): an answer to a recall question ("Where do I work?", "Do you remember my sister's name?"; not advice
like "What should I cook for my party?") that carries no citation marker of an item the prompt holds
([M2], [F1]) rests on nothing retrieved, and gets the same single memory-search retry.

Design (chosen over "stream, then replace"): the first answer is never shown when it is replaced, so
front ends need no replace protocol and the orchestrator's record of what was shown stays true.

- A message that is not about the user cannot trigger a retry: it streams as usual, zero added latency.
- A message about the user: answer text is held only while it could still be a non-answer, i.e. until
  `probe_chars` characters have arrived without a non-answer phrase in them (the phrases come first in
  such replies); then the held text is released and the rest streams. A short answer is held to its end.
  A recall question's answer is also held until it cites a marker of the prompt (an uncited one to its end).
  Tool and progress events are never held.
- On retry the user sees `Progress("checking memory", "checking memory again…")` and then the retried
  answer, streamed. If the retry fails before showing any text, the first answer is shown after all.

`Done.extra`: `mode="uncertainty_retry"`, `retried` (bool); with a retry, `retry` ("ok" or "failed") and
`retry_reason` ("non_answer" or "uncited").
`replaced_previous` is never needed: nothing shown is ever replaced. Usage is summed over both runs.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.events import Progress, RunEvent
from core.generation.runs import Candidate, ending, last_user_text, relay, with_note
from core.types import Message

if TYPE_CHECKING:
    from core.orchestrator import Agent

_NON_ANSWER = re.compile(
    "|".join(
        (
            r"\bi (?:do not|don't|can't|cannot|am unable to|'m unable to|am not able to|'m not able to) "
            r"(?:remember|recall)\b",
            r"\bi (?:do not|don't) (?:have|possess) (?:any |enough )?"
            r"(?:information|info|details|data|records?|memor(?:y|ies)|knowledge|context)\b"
            r".{0,40}?\b(?:about|of|on|regarding|for)\b",
            r"\bi(?:'m| am) not sure (?:what|who|which|where|when|how|whether|if) (?:you|your)\b",
            r"\byou (?:haven't|have not|never|didn't|did not) "
            r"(?:told|tell|mentioned|mention|shared|share|said|say)\b",
            r"\bi (?:do not|don't) know (?:your|who your|what your|where your|when your|which of your|"
            r"anything about (?:you|your)|much about (?:you|your)|who you|what you|where you|when you)\b",
            r"\bi (?:do not|don't) have (?:access to|a record of|any record of) "
            r"(?:your|our|previous|past|earlier)\b",
            r"\b(?:no|(?:do not|don't) have any) (?:memory|memories|record) of "
            r"(?:you|your|our|that|this|previous|past)\b",
            r"\bas an ai\b.{0,40}?\b(?:do not|don't|cannot|can't) (?:have|remember|recall|retain)\b",
            r"\bi (?:do not|don't|can't|cannot) (?:retain|keep|store|access) "
            r"(?:information|memories|personal|past)\b",
        )
    ),
    re.IGNORECASE | re.DOTALL,
)
_ABOUT_USER = re.compile(
    "|".join(
        (
            r"\b(?:my|mine|myself|our|ours)\b",
            r"\b(?:do|did|can|could) you (?:remember|recall|know)\b",
            r"\bwhat do you know about (?:me|us)\b",
            r"\b(?:did|have|had|was|were|am) (?:i|we)\b",
            r"\b(?:i|we) (?:told|said|mentioned|went|was|were|had|did|used to|met|bought|started)\b",
            r"\b(?:told|tell|mentioned to|said to) you\b",
        )
    ),
    re.IGNORECASE,
)
# A question asking for something the user told or did (a wh-question or "do you remember"), not advice.
_RECALL_QUESTION = re.compile(
    r"^\W*(?:(?:hey|hi|so|and|ok(?:ay)?|daemon)\W+)*"
    r"(?:(?:do|did|can|could) you (?:still )?(?:remember|recall)\b|"
    r"(?:who|whom|whose|what|what's|which|where|where's|when|how (?:many|much|long|old|often))\b|"
    r"(?:did|have|had|was|were|am) (?:i|we)\b)",
    re.IGNORECASE,
)
_ADVICE = re.compile(
    r"\b(?:should|could|would|can|might|recommend|suggest|ideas?|tips?|advice|good|best|better|how to)\b",
    re.IGNORECASE,
)
_MARKER = re.compile(r"\[([MWF]\d+)\]")
RETRY_NOTE = """Your memory of earlier conversations may hold the answer. Before answering, call the \
`{tool}` tool with a query for what the user is asking about, then answer from what it finds. If it finds \
nothing relevant, say so plainly and briefly."""


def _plain(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'")


@dataclass(frozen=True)
class UncertaintyDetector:
    """Recognises a non-answer about the user's own past/facts.

    `window`: only the first `window` characters of an answer are searched, so a real answer with a
    caveat further on ("… I don't remember her birthday, though") is not treated as a non-answer.
    """

    non_answer: re.Pattern[str] = _NON_ANSWER
    about_user: re.Pattern[str] = _ABOUT_USER
    window: int = 300

    def is_non_answer(self, answer: str) -> bool:
        return bool(self.non_answer.search(_plain(answer)[: self.window]))

    def is_about_user(self, question: str) -> bool:
        return bool(self.about_user.search(_plain(question)))

    def is_recall_question(self, question: str) -> bool:
        """True for a question asking what the user told or did ("Where do I work?"), not for advice."""
        text = _plain(question)
        if not (self.is_about_user(text) or re.search(r"\b(?:I|my|me)\b", text, re.IGNORECASE)):
            return False
        return bool(_RECALL_QUESTION.search(text)) and not _ADVICE.search(text)

    @staticmethod
    def cites_retrieved(answer: str, context: str) -> bool:
        """True when `answer` carries a citation marker that names an item of the prompt (`context`)."""
        return any(f"[{marker}]" in context for marker in _MARKER.findall(answer))

    def fires(self, question: str, answer: str) -> bool:
        """True when `answer` is a non-answer to a question about the user."""
        return self.is_about_user(question) and self.is_non_answer(answer)


class UncertaintyRetry:
    """Wraps `agent`: one memory-search retry for non-answers about the user (see the module docstring).

    Args:
        agent: the agent to run (it must offer `tool_name`, or the note asks for a tool it lacks).
        detector: what counts as a non-answer and as a question about the user.
        tool_name: the memory search tool the retry note names.
        probe_chars: answer text held back at most, while it may still turn out to be a non-answer.
    """

    def __init__(
        self,
        agent: Agent,
        detector: UncertaintyDetector | None = None,
        *,
        tool_name: str = "search_memory",
        probe_chars: int = 300,
    ) -> None:
        self._agent = agent
        self._detector = detector or UncertaintyDetector()
        self._tool_name = tool_name
        self._probe_chars = probe_chars

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        """Answer `messages`; ends with exactly one `Done` or `RunError`."""
        cancel = cancel or asyncio.Event()
        extra = {"mode": "uncertainty_retry", "retried": False}
        first = Candidate("first")
        question = last_user_text(messages)
        personal = self._detector.is_about_user(question)
        recall = self._detector.is_recall_question(question)
        # what the prompt holds besides the user's words: the markers an answer may cite
        context = "\n".join(m.content for m in messages[:-1]) if recall else None

        def holding(held: str) -> bool:
            uncited = context is not None and not self._detector.cites_retrieved(held, context)
            return self._holding(held) or uncited

        hold = holding if personal or recall else None
        async for event in relay(
            self._agent, messages, first, cancel=cancel, max_tokens=max_tokens, hold=hold
        ):
            yield event
        reason = self._should_retry(first, cancel, context) if personal or recall else None
        if reason is None:
            for event in ending(first, first.usage, extra):
                yield event
            return
        yield Progress("checking memory", "checking memory again…")
        retry = Candidate("retry")
        note = RETRY_NOTE.format(tool=self._tool_name)
        async for event in relay(
            self._agent,
            with_note(messages, note),
            retry,
            cancel=cancel,
            max_tokens=max_tokens,
            offset=first.usage,
        ):
            yield event
        usage = first.usage + retry.usage
        extra["retried"] = True
        extra["retry"] = "ok" if retry.ok else ("cancelled" if cancel.is_set() else "failed")
        extra["retry_reason"] = reason
        # A retry that failed before showing anything leaves the (held, unseen) first answer standing.
        use_retry = retry.ok or retry.shown or (cancel.is_set() and retry.done is not None)
        shown = retry if use_retry else first
        for event in ending(shown, usage, extra):
            yield event

    def _holding(self, held: str) -> bool:
        """Keep holding while the text is short enough or already reads as a non-answer."""
        return len(held) < self._probe_chars or self._detector.is_non_answer(held)

    def _should_retry(self, first: Candidate, cancel: asyncio.Event, context: str | None) -> str | None:
        """Why the first answer gets a retry ("non_answer", "uncited"), or None. `context` is the prompt's
        text for a recall question (None: the evidence rule does not apply)."""
        done = first.done
        if cancel.is_set() or first.shown or done is None or done.exit_reason != "answer":
            return None
        if any(call.get("name") == self._tool_name for call in done.tool_calls):
            return None  # it already searched memory; asking again would only repeat the search
        if self._detector.is_non_answer(done.answer):
            return "non_answer"
        if context is not None and not self._detector.cites_retrieved(done.answer, context):
            return "uncited"
        return None
