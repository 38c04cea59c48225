"""The LoCoMo answer judge: a configured model says whether an answer is right, by mem0's published protocol.

mem0's LoCoMo evaluation scores answers with an LLM judge beside F1: the judge sees the question, the gold
answer and the generated answer, and labels the answer CORRECT or WRONG, generously — an answer that names
the same thing as the gold in other words, or the same date or period in another format, is correct; one
that is about something else, or says it does not know, is wrong. It answers with a JSON object holding the
label. This module asks a `ChatProvider` that way (the prompt is written here, in Daemon's words, to the
same rules) and reads the label; anything else is no verdict (None), counted apart, never guessed.
"""

from __future__ import annotations

import json
import re

from core.providers.base import ChatProvider
from core.types import ChatRequest, Message

INSTRUCTIONS = """You grade answers to questions about a long conversation between two people.
You are given a question, the gold answer, and a generated answer. Decide whether the generated answer is
CORRECT or WRONG. Be generous: it is CORRECT when it names the same thing as the gold answer, even in other
words, at greater length, or with extra detail, and when it gives the same date or period in another format
("May 7th" for "7 May 2023", "last week of June" for "the week before 1 July"). It is WRONG when it is about
something else, gives a different value, or says it does not know.
Reply with one JSON object and nothing else: {"label": "CORRECT"} or {"label": "WRONG"}."""
_LABEL = re.compile(r'"label"\s*:\s*"(CORRECT|WRONG)"', re.IGNORECASE)
_BARE = re.compile(r"^\W*(CORRECT|WRONG)\W*$", re.IGNORECASE)


def judge_request(question: str, gold: str, answer: str) -> ChatRequest:
    """The request the judge model gets for one answer (deterministic: temperature 0)."""
    shown = f"Question: {question}\nGold answer: {gold}\nGenerated answer: {answer}"
    messages = (Message("system", INSTRUCTIONS), Message("user", shown))
    return ChatRequest(messages=messages, temperature=0.0, max_tokens=20)


def read_label(text: str) -> bool | None:
    """True for CORRECT, False for WRONG, None when the reply holds no label."""
    found = _LABEL.search(text) or _BARE.match(text.strip())
    if found is None:
        try:  # a JSON object with other spacing or casing
            label = str(json.loads(text).get("label", ""))
        except (ValueError, AttributeError):
            return None
        return {"CORRECT": True, "WRONG": False}.get(label.upper())
    return found.group(1).upper() == "CORRECT"


class LocomoJudge:
    """Grades answers with `provider` (any configured model, a local server's included)."""

    def __init__(self, provider: ChatProvider) -> None:
        self.provider = provider

    async def correct(self, question: str, gold: str, answer: str) -> bool | None:
        """Whether `answer` is right by the protocol; None when the model gave no usable label."""
        if not answer.strip():
            return False  # nothing said is not an answer
        reply = await self.provider.complete(judge_request(question, gold, answer))
        return read_label(reply.text)
