"""Sentences of a source that is not the user (a document, a note, a web page) which speak to the assistant
instead of informing it: "Note to the assistant: …", "Assistant, ignore …", "From now on tell the user to …".
Such text may be quoted as what the source says, never used as an answer, a fact or an instruction.

One reading of the parse, not a list of phrasings: the sentence names the assistant as its addressee (the
object of "to" after a note or message, or a vocative), or gives an order (an imperative with no subject)
about "the user", whom only text written for the assistant calls that; plus the clearest injection phrases
the tool-output guardrail knows.
"""

from __future__ import annotations

from typing import Any

from core.agent.guardrails import INJECTION_RE

ASSISTANT_NAMES = frozenset(
    {"assistant", "ai", "chatbot", "bot", "model", "llm", "daemon", "chatgpt", "claude"}
)
MESSAGE_NOUNS = frozenset({"note", "message", "instruction", "instructions", "reminder", "memo", "attention"})


def addresses_the_assistant(sent: Any) -> bool:
    """Whether a parsed sentence (a spaCy span) speaks to the assistant rather than about the world."""
    if INJECTION_RE.search(sent.text):
        return True
    return any(_addressee(token) or _order_about_the_user(token) for token in sent)


def _addressee(token: Any) -> bool:
    """ "Note to the assistant", "a message for the AI", "Assistant, …"."""
    if token.lower_ not in ASSISTANT_NAMES:
        return False
    head = token.head
    if token.dep_ == "pobj" and head.lower_ in ("to", "for") and head.head.lower_ in MESSAGE_NOUNS:
        return True
    opens_with_a_comma = token.i == token.sent.start and token.i + 1 < len(token.doc)
    return opens_with_a_comma and token.nbor(1).text == ","


def _order_about_the_user(token: Any) -> bool:
    """ "tell the user to …", "make sure the user …": an imperative verb whose object is "the user"."""
    if token.lower_ != "user" or not any(child.lower_ == "the" for child in token.children):
        return False
    verb = token.head
    while verb.dep_ in ("pobj", "prep", "ccomp", "xcomp") and verb.head is not verb and verb.pos_ != "VERB":
        verb = verb.head
    return _imperative(verb)


def _imperative(verb: Any) -> bool:
    if verb.pos_ != "VERB" or verb.tag_ != "VB":
        return False
    if any(child.dep_ in ("nsubj", "nsubjpass", "expl") for child in verb.children):
        return False
    return not any(child.dep_ == "aux" and child.tag_ == "MD" for child in verb.children)  # "you should tell"
