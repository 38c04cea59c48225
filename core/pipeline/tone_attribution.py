"""Who a tone cue is about: the user ("self"), another person ("third"), or the world (news, fiction,
research, the user's coursework). Pure functions over the detector's normalised tokens."""

from __future__ import annotations

from collections.abc import Sequence

from core.pipeline import tone_lexicon as lex

FRAME_MARKERS = lex.FICTION_MARKERS | lex.NEWS_MARKERS | lex.INFO_MARKERS


def clause_bounds(tokens: Sequence[str], start: int, end: int, breaks: frozenset[str]) -> tuple[int, int]:
    """Bounds of the clause around tokens[start:end], delimited by ``breaks``."""
    lo = start
    while lo > 0 and tokens[lo - 1] not in breaks:
        lo -= 1
    hi = end
    while hi < len(tokens) and tokens[hi] not in breaks:
        hi += 1
    return lo, hi


def attribute(tokens: Sequence[str], start: int, end: int, words: Sequence[str]) -> str:
    """Who a cue is about: "self", "third" (another person) or "world" (news, fiction, research)."""
    if any(w in lex.FIRST_PERSON for w in words):
        return "self"
    following = tokens[end] if end < len(tokens) else ""
    if following in lex.OBJECT_SELF:
        return "self"
    if following in lex.OBJECT_OTHER:
        return "third"
    lo, hi = clause_bounds(tokens, start, end, lex.SENTENCE_BREAKS)
    framed = any(t in FRAME_MARKERS for t in tokens[lo:hi])
    if framed and start > lo and tokens[start - 1] in lex.TOPIC_PREPOSITIONS:
        return "world"  # "a poem about grief", "signs of depression"
    for i in range(start - 1, lo - 1, -1):
        token = tokens[i]
        if _owns_coursework(tokens, i):
            return "world"  # "for my psych paper, ... self harm": the subject of the user's work
        if token in lex.FIRST_PERSON:
            return "self"
        if token in lex.THIRD_PERSON or token in lex.THIRD_PARTY_NOUNS:
            return "third"
        if token in FRAME_MARKERS:
            return "world"
    if any(w in lex.THIRD_PERSON for w in words):
        return "third"
    return _attribute_by_context(tokens[lo:hi], tokens)


def attribute_message(tokens: Sequence[str]) -> str:
    """Who a whole message is about when no single cue decides: "self", "third" or "world"."""
    return _attribute_by_context(tokens, tokens)


def _attribute_by_context(sentence: Sequence[str], tokens: Sequence[str]) -> str:
    """No subject before the cue: decide from the sentence, then the whole message; default to the user."""
    for scope in (sentence, tokens):
        coursework = {i for i in range(len(scope)) if _owns_coursework(scope, i)}
        if any(t in lex.FIRST_PERSON for i, t in enumerate(scope) if i not in coursework):
            return "self"
        if coursework or any(t in FRAME_MARKERS for t in scope):
            return "world"
        if any(t in lex.THIRD_PERSON or t in lex.THIRD_PARTY_NOUNS for t in scope):
            return "third"
    return "self"


def _owns_coursework(tokens: Sequence[str], i: int) -> bool:
    """ "my"/"our" at `i` owning a piece of coursework ("my psych paper", "our nursing exam") in a message
    that asks something: "for my exam, how much paracetamol is an overdose?", but not "my project failed,
    want to die"."""
    return (
        tokens[i] in ("my", "our")
        and any(t in lex.STUDY_NOUNS for t in tokens[i + 1 : i + 4])
        and any(t in lex.ASKING for t in tokens)
    )
