"""Explicit crisis statements in languages other than English.

The tone detector's lexicon, attribution and danger frames read English (its tokens are ASCII words and the
spaCy model is English), and the MiniLM head barely reads other languages: on independently written sets,
crisis messages wholly in another language were caught about half as often as English ones. No parser for
these languages ships offline, so this module does the narrow thing a parser is not needed for: it finds the
few first-person statements that mean the same in every chat ("I want to die", "I'm going to kill myself",
"I don't want to live anymore", "I took all the pills") in 26 languages, and nothing broader: "he's going
to kill me" is left out, because in every language it is mostly said of an angry parent. A statement
preceded by a negation ("no quiero morir"), beside a figurative complement ("me muero de risa", "累得想死")
or in a laughing message does not count. The statements and the words that qualify them live in
data/tone/languages.toml.

Matching: Latin, Greek and Cyrillic text is compared with accents removed (people type "nao quero viver" as
often as "não quero viver"); other scripts as written. Phrases of scripts written without spaces (Chinese,
Japanese, Thai) match anywhere; the rest match whole words, and a phrase ending in ``*`` matches a word's
beginning (Korean endings: "죽고 싶*" is "죽고 싶어", "죽고 싶다", "죽고 싶네").
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from core.pipeline.word_lists import word_lists

# The phrases and words, each list with why it is there, live in data/tone/languages.toml.
_W = word_lists("languages")
# First-person statements of wanting to die, of killing oneself or of an overdose taken, by language.
STATEMENTS: dict[str, tuple[str, ...]] = {
    language: tuple(phrases) for language, phrases in _W["statements"].items()
}
NEGATIONS: frozenset[str] = frozenset(_W["negations"])  # a word right before a statement that denies it
FIGURATIVE_AFTER: tuple[str, ...] = tuple(_W["figurative_after"])  # "me muero de risa"
FIGURATIVE_BEFORE: tuple[str, ...] = tuple(_W["figurative_before"])  # "累得想死"
LAUGHTER: tuple[str, ...] = tuple(_W["laughter"])  # a hyperbole among friends, like "lol" in English
# Everyday English words that no other language spells the same way.
ENGLISH_WORDS: frozenset[str] = frozenset(_W["english_words"])

# Scripts with spaces between words: phrases in them match whole words. Others (CJK, Thai) match anywhere.
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
_ACCENTED_SCRIPTS = 0x0530  # Latin, Greek and Cyrillic end here: their accents are dropped for matching
_ALEF_FORMS = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ى": "ي", "ة": "ه", "\u200c": " "})


def fold(text: str) -> str:
    """Lower case, accents of Latin, Greek and Cyrillic letters dropped, Arabic alef forms unified."""
    out: list[str] = []
    for char in unicodedata.normalize("NFKD", text.casefold()):
        if unicodedata.combining(char) and out and ord(out[-1]) < _ACCENTED_SCRIPTS:
            continue
        out.append(char)
    return unicodedata.normalize("NFC", "".join(out)).translate(_ALEF_FORMS).replace("\u2019", "'")


def _pattern(phrase: str) -> re.Pattern[str]:
    folded = fold(phrase)
    prefix = folded.endswith("*")
    body = re.escape(folded.rstrip("*")).replace(r"\ ", r"\s+").replace(r"\*", r"\w*")
    if _UNSPACED.search(folded):
        return re.compile(body)
    return re.compile(rf"(?<!\w){body}" + ("" if prefix else r"(?!\w)"))


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((phrase, _pattern(phrase)) for phrases in STATEMENTS.values() for phrase in phrases)


@cache
def _folded_words() -> tuple[frozenset[str], tuple[str, ...], tuple[str, ...]]:
    """NEGATIONS, FIGURATIVE_AFTER and FIGURATIVE_BEFORE folded like the text they are compared with."""
    return (
        frozenset(fold(word) for word in NEGATIONS),
        tuple(fold(word) for word in FIGURATIVE_AFTER),
        tuple(fold(word) for word in FIGURATIVE_BEFORE),
    )


def _negated(text: str, start: int) -> bool:
    words = text[:start].split()
    return bool(words) and words[-1].strip(",.!?") in _folded_words()[0]


def _figurative(text: str, start: int, end: int) -> bool:
    _, after_words, before_words = _folded_words()
    before, after = text[:start].rstrip(" ,.!?"), text[end:].lstrip()
    return after.startswith(after_words) or before.endswith(before_words)


def crisis_statements(text: str) -> tuple[str, ...]:
    """The explicit non-English crisis statements in `text` that stand: not negated, not figurative, not
    in a laughing message. Empty for English text and for any text without one."""
    folded = fold(text)
    if _laughing(text, folded):
        return ()
    matches = [
        (m.start(), m.end(), phrase) for phrase, pattern in _patterns() for m in pattern.finditer(folded)
    ]
    # Longest first: a denied or figurative statement also denies the shorter ones inside it ("qué vergüenza,
    # me quiero morir" is not rescued by its "quiero morir").
    matches.sort(key=lambda m: (m[0] - m[1], m[0]))
    claimed: list[tuple[int, int]] = []
    found: list[str] = []
    for start, end, phrase in matches:
        if any(start < c_end and c_start < end for c_start, c_end in claimed):
            continue
        claimed.append((start, end))
        if not _negated(folded, start) and not _figurative(folded, start, end) and phrase not in found:
            found.append(phrase)
    return tuple(found)


def reads_as_english(text: str) -> bool:
    """Whether `text` may be English: mostly Latin letters without accents, and, from four words on, at
    least one of `ENGLISH_WORDS`. Short or mixed text counts as English (the English readers then decide)."""
    letters = [c for c in text if c.isalpha()]
    if letters and sum(not c.isascii() for c in letters) > len(letters) * 0.3:
        return False
    words = re.findall(r"[a-z']+", text.lower().replace("\u2019", "'"))
    return len(words) < 4 or not ENGLISH_WORDS.isdisjoint(words)


def _laughing(text: str, folded: str) -> bool:
    return any(laugh in folded or laugh in text for laugh in LAUGHTER)
