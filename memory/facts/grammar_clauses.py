"""Whether a clause states something as true, read off the parse: its stance.

A verb's clause is followed up its chain of heads ("calling" <- "ended" in "we ended up calling her
Pepper"). Nothing is stated under "if"/"unless"/"whether" (a `mark`), under "would"/"could"/"should", in
what someone else said or thinks (a `ccomp` of "say"/"think" whose subject is not the user), under a wish
("I wish I had a dog", "imagine I had a cat"), or in a question (an inverted auxiliary or a wh-word in a
sentence that ends with "?"). "I think"/"maybe"/"might"/"will" lower the confidence. Negation comes from
the parse too: a `neg` dependent ("not", "n't", "never"); "no longer", "anymore" and "used to" also say that
it was true and has stopped (`ended`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory.facts.extraction_clauses import DIRECT, HEDGED
from memory.facts.grammar_phrases import SUBJECT_DEPS, USER, resolve, spliced

if TYPE_CHECKING:
    from spacy.tokens import Token

FUTURE = 0.6  # "I'm moving to Lisbon", "I'll start at Google": likely, not yet true
_LINKS = frozenset({"conj", "xcomp", "ccomp", "advcl", "acomp", "pcomp", "relcl", "acl", "dep", "parataxis"})
# "though"/"although" concede a fact ("though I haven't lived there in years"): stated, not supposed
_IF = frozenset({"if", "unless", "whether"})
_UNREAL = frozenset({"would", "could", "should", "'d", "ought"})
_MAYBE = frozenset({"might", "may"})
_WILL = frozenset({"will", "'ll", "shall", "wo", "gon", "going"})
_UNREAL_HEADS = frozenset(
    """wish imagine suppose pretend dream hope want plan consider need try decide ask wonder fantasize
    like love prefer mean intend expect save afford""".split()
)
_SAY = frozenset("say tell claim hear think believe reckon mention report insist complain joke swear".split())
_HEDGE = frozenset("think guess believe suppose reckon".split())
_WH = frozenset({"WDT", "WP", "WP$", "WRB"})
_ENDED = frozenset({"anymore", "any longer"})


@dataclass(frozen=True)
class Stance:
    """How a clause says its facts: `negated` ("not", "never"), `ended` (true once, no longer)."""

    confidence: float = DIRECT
    negated: bool = False
    ended: bool = False


def stance(verb: Token) -> Stance | None:
    """The clause's stance, or None when it states nothing (question, hypothetical, hearsay, wish)."""
    confidence = DIRECT
    token, via = verb, ""
    for _ in range(8):
        step = _step(token, verb, via)
        if step is None:
            return None
        confidence = min(confidence, step)
        if token.dep_ not in _LINKS or token.head is token or spliced(token):
            break
        token, via = token.head, token.dep_
    if _question(token):
        return None
    negated, ended = polarity(verb)
    return Stance(confidence, negated or ended, ended)


def _step(token: Token, verb: Token, via: str) -> float | None:
    """The confidence one head of the chain allows, None when it makes the clause unreal. `via` is how the
    chain reached it: a clause joined by "and"/"but" ("I love sci-fi but I find fantasy boring") is not
    the complement of a wish or of what someone said."""
    children = list(token.children)
    if any(c.dep_ == "mark" and c.lower_ in _IF for c in children):
        return None
    auxes = {c.lower_ for c in children if c.dep_ in ("aux", "auxpass")}
    if token is not verb and token.lemma_ == "use" and token.tag_ == "VBD":
        return DIRECT  # "I used to live in Boston": `polarity` marks it ended
    if auxes & _UNREAL and not (token is verb and token.lemma_ in ("stand",)):
        return None
    if via == "conj":
        return DIRECT if not auxes & _UNREAL else None
    if token is not verb and token.lemma_ in _UNREAL_HEADS and token.pos_ in ("VERB", "AUX"):
        return None  # a wish or a plan, not "the family plan" a parse made the root
    if token is not verb and token.lemma_ in _SAY:
        said_by = next((c for c in children if c.dep_ in SUBJECT_DEPS), None)
        if (
            said_by is None
            or (who := resolve(said_by)) is None
            or who.text != USER
            or token.lemma_ not in _HEDGE
        ):
            return None
        return HEDGED  # "I think I'll move to Lisbon"
    if auxes & _MAYBE:
        return HEDGED
    if auxes & _WILL or (token.tag_ == "VBG" and "going" in auxes):
        return FUTURE
    return DIRECT


def _question(top: Token) -> bool:
    """An inverted auxiliary or a wh-word opening the clause of a sentence that ends with "?"; a question
    tag about someone else ("Taylor Swift was born in Pennsylvania, right?")."""
    sentence = top.sent
    if not sentence.text.rstrip(" \"')").endswith("?"):
        return False
    subject = next((c for c in top.children if c.dep_ in SUBJECT_DEPS), None)
    if top.dep_ == "ROOT" and (subject is None or (who := resolve(subject)) is None or not who.kin):
        return True
    if subject is not None and any(c.dep_ in ("aux", "auxpass") and c.i < subject.i for c in top.children):
        return True
    if subject is not None and top.pos_ == "AUX" and top.i < subject.i:
        return True
    return any(t.tag_ in _WH for t in sentence if t.i <= top.i and t.head.i >= top.i - 8)


def polarity(verb: Token) -> tuple[bool, bool]:
    """(negated, ended): "I don't live there" -> (True, False); "no longer"/"anymore"/"used to" -> ended."""
    near = [verb, *(c for c in verb.children if c.dep_ in ("acomp", "attr", "prep", "advmod", "dobj"))]
    words = [c for t in near for c in t.children] + list(verb.children)
    ended = any(w.lower_ in _ENDED for w in words) or _no_longer(words)
    ended = ended or (verb.dep_ == "xcomp" and verb.head.lemma_ == "use" and verb.head.tag_ == "VBD")
    # "not" after the verb negates it only next to an auxiliary ("I'm not a nurse"), not "Denver, not Boston"
    negated = any(
        c.dep_ == "neg" and (c.i < verb.i or verb.pos_ == "AUX" and c.i <= verb.i + 2) for c in verb.children
    )
    return negated, ended


def _no_longer(words: list[Token]) -> bool:
    return any(
        w.lower_ == "longer"
        and any(c.lower_ == "no" for c in w.children)
        or w.lower_ == "no"
        and w.nbor(1).lower_ == "longer"
        for w in words
        if w.i + 1 < len(w.doc)
    )
