"""What a message does, read from its parse: asks something, requests something, or tells something.

Recall intents are for asking ("where does Priya live now?", "remind me of my dentist's name", "my bike's
frame number pls"); a message that tells Daemon something ("Actually, Priya moved to Seattle last month.")
shares an update, even when it names the same people and facts a question would. The decision uses
spaCy's parse rather than phrase lists:

- **question**: a question mark; a sentence or comma-separated clause that opens with a wh-word (tags
  WDT/WP/WP$/WRB) or with an auxiliary before its subject ("did I tell you ...", "..., what was it"); or a
  clause about not knowing or
  forgetting ("I can't remember what ...", "I wonder where ...").
- **request**: an imperative (a base-form verb with no subject heading its sentence: "remind me ...",
  "tell me ...") or a "please".
- **statement**: a sentence with a subject and a finite verb, in declarative order, and nothing asked.
- **fragment**: anything else ("the name of my son's teacher pls"): not enough to say it tells anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

QUESTION, REQUEST, STATEMENT, FRAGMENT = "question", "request", "statement", "fragment"

_WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})
_FINITE_TAGS = frozenset({"VBD", "VBZ", "VBP", "MD"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})
# Verbs of knowing and remembering: negated, or "wonder", they ask ("I don't remember where I parked").
_KNOWING = frozenset({"remember", "recall", "know", "forget", "forgot", "forgotten", "wonder", "sure"})
# Openers a sentence's speech act looks past ("ok so", "hey", "actually", "btw").
_SKIPPED_POS = frozenset({"INTJ", "PUNCT", "CCONJ", "SPACE", "X", "SYM"})
_SKIPPED_WORDS = frozenset({"so", "actually", "btw", "anyway", "well", "also", "oh", "hey", "ok", "okay"})
_PLEASE = frozenset({"please", "pls", "plz", "plez"})


def speech_act(doc: Any) -> str:
    """`question`, `request`, `statement` or `fragment` for a parsed message (a spaCy `Doc`)."""
    if any(token.text == "?" for token in doc):
        return QUESTION
    acts = [_sentence_act(sentence) for sentence in doc.sents]
    for act in (QUESTION, REQUEST, STATEMENT):
        if act in acts:
            return act
    return FRAGMENT


def _sentence_act(sentence: Any) -> str:
    words = list(_content(sentence))
    if not words:
        return FRAGMENT
    first = words[0]
    if any(_opens_with_wh(words, i) for i in range(len(words)) if i == 0 or words[i - 1].text in ",;-"):
        return QUESTION
    if _auxiliary_first(words) or any(_inverted(token) for token in words):
        return QUESTION
    if any(_unknowing(token) for token in sentence):
        return QUESTION
    if any(token.lower_ in _PLEASE for token in sentence):
        return REQUEST
    root = sentence.root
    has_subject = any(child.dep_ in _SUBJECTS for child in root.children)
    if root.tag_ == "VB" and not has_subject and root.i == first.i:
        return REQUEST
    if has_subject and (root.tag_ in _FINITE_TAGS or _finite_auxiliary(root.children)):
        return STATEMENT
    return FRAGMENT


def _content(sentence: Any) -> Iterable[Any]:
    """The sentence's tokens after interjections, punctuation and chatty openers."""
    tokens = iter(sentence)
    for token in tokens:
        if token.pos_ in _SKIPPED_POS or token.lower_ in _SKIPPED_WORDS:
            continue
        yield token
        yield from tokens
        return


def _opens_with_wh(words: list[Any], i: int) -> bool:
    """The clause starting at `words[i]` opens with an interrogative wh-word ("..., what was it"); a relative
    one describes instead ("my daughter, who is 7, ...")."""
    return words[i].tag_ in _WH_TAGS and words[i].head.dep_ != "relcl"


def _auxiliary_first(words: list[Any]) -> bool:
    """The sentence opens with an auxiliary or copula whose subject follows it ("has my sleep ...")."""
    first = words[0]
    return first.pos_ == "AUX" and any(
        child.dep_ in _SUBJECTS and child.i > first.i for child in (*first.children, *first.head.children)
    )


def _inverted(token: Any) -> bool:
    """An auxiliary or copula right before its own subject: "did I ...", "was I living", "..., didn't I",
    "which one was it"."""
    if token.pos_ != "AUX":
        return False
    after = token.nbor(1) if token.i + 1 < len(token.doc) else None
    if after is not None and after.lower_ in ("n't", "not"):
        after = after.nbor(1) if after.i + 1 < len(after.doc) else None
    if after is None or after.dep_ not in _SUBJECTS:
        return False
    return after.head in (token, token.head)


def _unknowing(token: Any) -> bool:
    """A verb of knowing that is negated or is "wonder" ("I can't remember", "not sure where")."""
    if token.lower_ not in _KNOWING:
        return False
    return token.lower_ == "wonder" or any(child.dep_ == "neg" for child in token.children)


def _finite_auxiliary(children: Iterable[Any]) -> bool:
    return any(child.dep_ in ("aux", "auxpass") and child.tag_ in _FINITE_TAGS for child in children)
