"""Building blocks of the intent classifier: intent names, cue and combination types, text normalisation.

Cues match the normalised text (lower case, contractions expanded, common chat spellings fixed) unless they
are marked `raw`: code shapes (tracebacks, `KeyError`, file names) are matched on the text as typed.
A cue adds `weight` once, or `weight` per distinct match up to `cap` matches for vocabulary lists, so one
long technical paste cannot drown every other signal. Weights: ~2 a cue that alone names the intent,
~1 a strong hint, <1 a hint that needs company. Patterns describe forms (question shapes, time expressions,
emotion words after "I feel"), not memorised sentences, because the classifier is judged on unseen queries.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

FACTUAL = "factual_recall"
TEMPORAL = "temporal_recall"
EMOTIONAL = "emotional_support"
CASUAL = "casual_social"
TECHNICAL = "technical_help"
CREATIVE = "creative_exploration"
META = "meta_conversational"
PROJECT = "project_work"
GENERAL = "general"

FOLLOW_UP_CUE = "context:follow_up"


@dataclass(frozen=True)
class Cue:
    """One weighted pattern for one intent."""

    intent: str
    name: str
    weight: float
    pattern: re.Pattern[str]
    cap: int = 1  # >1: weight per distinct match, up to `cap` matches
    raw: bool = False  # match the text as typed (case-sensitive code shapes)

    def hits(self, normalised: str, raw: str) -> int:
        """How many times the cue counts for the text: 0 or 1, or distinct matches up to `cap`."""
        text = raw if self.raw else normalised
        if self.cap <= 1:
            return 1 if self.pattern.search(text) else 0
        return min(len({m.group(0) for m in self.pattern.finditer(text)}), self.cap)


@dataclass(frozen=True)
class Combo:
    """A bonus for `intent` when every cue named in `requires` fired (names are `intent:name`)."""

    intent: str
    name: str
    weight: float
    requires: tuple[str, ...]


def make_cue(intent: str, name: str, weight: float, pattern: str, cap: int = 1, raw: bool = False) -> Cue:
    """A cue; plain patterns match case-insensitively, `raw` ones exactly as written."""
    flags = 0 if raw else re.IGNORECASE
    return Cue(intent, name, weight, re.compile(pattern, flags), cap, raw)


# --- normalisation ------------------------------------------------------------------------------------
_QUOTES: Mapping[int, str] = MappingProxyType(
    str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "`": "'"})
)
# fmt: off
_WORD_FIXES: Mapping[str, str] = MappingProxyType({
    "whats": "what is", "wats": "what is", "wat": "what", "wut": "what", "thats": "that is",
    "hows": "how is", "wheres": "where is", "whos": "who is", "whens": "when is", "im": "i am",
    "ive": "i have", "dont": "do not", "doesnt": "does not",
    "didnt": "did not", "cant": "cannot", "wont": "will not", "isnt": "is not", "wasnt": "was not",
    "arent": "are not", "havent": "have not", "hasnt": "has not", "couldnt": "could not",
    "shouldnt": "should not", "wouldnt": "would not", "u": "you", "ur": "your", "ya": "you", "r": "are",
    "pls": "please", "plz": "please", "rly": "really", "idk": "i do not know", "tho": "though",
    "bc": "because", "cuz": "because", "abt": "about", "wknd": "weekend", "tmrw": "tomorrow",
    "tmr": "tomorrow", "yday": "yesterday", "fav": "favorite", "fave": "favorite",
    "favourite": "favorite", "favourites": "favorites", "lets": "let us", "gonna": "going to",
    "wanna": "want to", "gotta": "got to", "b4": "before", "2day": "today", "thx": "thanks",
    "ty": "thanks", "tysm": "thanks so much", "bday": "birthday", "yr": "year", "yrs": "years",
})
# fmt: on
_IS_CONTRACTIONS = ("what", "that", "it", "there", "here", "who", "where", "how", "when", "he", "she")
_WORD = re.compile(r"[a-z0-9']+")
_SPACES = re.compile(r"\s+")
_SUFFIXES = (("n't", " not"), ("'re", " are"), ("'ve", " have"), ("'ll", " will"), ("'m", " am"))


def _fix_word(match: re.Match[str]) -> str:
    word = match.group(0)
    if word in _WORD_FIXES:
        return _WORD_FIXES[word]
    if word in ("can't", "cannot"):
        return "cannot"
    if word == "won't":
        return "will not"
    if word == "let's":
        return "let us"
    for suffix, expansion in _SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix):
            return word[: -len(suffix)] + expansion
    if word.endswith("'s") and word[:-2] in _IS_CONTRACTIONS:
        return word[:-2] + " is"
    if word.endswith("'d") and word[:-2] in ("i", "you", "we", "they", "he", "she"):
        return word[:-2] + " would"
    return word


def normalise(text: str) -> str:
    """Lower case, straight quotes, expanded contractions and chat spellings, single spaces."""
    lowered = text.translate(_QUOTES).lower()
    return _SPACES.sub(" ", _WORD.sub(_fix_word, lowered)).strip()
