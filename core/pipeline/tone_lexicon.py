"""The tone lexicon (`data/tone/lexicon.toml`), as the constants `core.pipeline.tone` reads.

Pure data, no behaviour: weighted phrase groups, the figurative spans that cancel them, the risk terms, and
the small word classes of negation, tense, attribution and support. Phrases are written the way people type
them; the detector normalises both the phrases and the user's text the same way (lower case, contractions
expanded, so "can't cope" also matches "cant cope" and "cannot cope"). A trailing ``*`` on a word matches any
word starting with that prefix ("suicid*" matches "suicidal" and "suicide").

Each phrase group is ``(category, level, weight, phrases)``. ``level`` is one of the four tone levels of
docs/architecture.md, ``"inverted"`` (a reason to live: only its negation is a crisis cue) or ``"modifier"``
(time pressure: it never scores on its own, it only enables a combination multiplier). Weights are
calibrated against the thresholds in ``ToneConfig``: one crisis phrase reaches crisis, one elevated phrase
reaches elevated, one concern phrase reaches concern, a weak cue alone stays below concern.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from core.pipeline.word_lists import word_lists

PhraseGroup = tuple[str, str, float, tuple[str, ...]]

_DATA = word_lists("lexicon")


def _tuple(key: str) -> tuple[str, ...]:
    return tuple(_DATA[key])


def _set(key: str) -> frozenset[str]:
    return frozenset(_DATA[key])


def _groups(level: str) -> tuple[PhraseGroup, ...]:
    def texts(group: dict[str, Any]) -> tuple[str, ...]:
        return _tuple(group["texts_from"]) if "texts_from" in group else tuple(group["texts"])

    return tuple((g["category"], g["level"], float(g["weight"]), texts(g)) for g in _DATA[level])


# Weighted phrase groups, crisis slang, and what turns slang into a quotation or a joke.
SLANG_IDEATION = _tuple("slang_ideation")
SLANG_SELF_HARM = _tuple("slang_self_harm")
QUOTING = _set("quoting")
JOKING = _set("joking")
CRISIS_GROUPS = _groups("crisis")
ELEVATED_GROUPS = _groups("elevated")
CONCERN_GROUPS = _groups("concern")
MODIFIER_GROUPS = _groups("modifier")
PHRASE_GROUPS: tuple[PhraseGroup, ...] = CRISIS_GROUPS + ELEVATED_GROUPS + CONCERN_GROUPS + MODIFIER_GROUPS
BENIGN_PHRASES = _tuple("benign_phrases")
RISK_TERMS = _tuple("risk_terms")
HINT_TERMS = _tuple("hint_terms")

# Asking what a word means is not saying it: "what does ctb mean".
MEANING_WORDS = _set("meaning_words")

# Negation, tense, intensity and clause breaks.
NEGATION_CUES = _set("negation_cues")
NEGATION_EXCEPTIONS = _set("negation_exceptions")
PAST_CUES = _tuple("past_cues")
CLAUSE_BREAKS = _set("clause_breaks")
SENTENCE_BREAKS = _set("sentence_breaks")
INTENSIFIERS = _set("intensifiers")
DIMINISHERS = _set("diminishers")
CONTRACTIONS: MappingProxyType[str, str] = MappingProxyType(dict(_DATA["contractions"]))

# Attribution: who or what a cue is about.
FIRST_PERSON = _set("first_person")
THIRD_PERSON = _set("third_person")
THIRD_PARTY_NOUNS = _set("third_party_nouns")
FICTION_MARKERS = _set("fiction_markers")
NEWS_MARKERS = _set("news_markers")
OBJECT_SELF = _set("object_self")
OBJECT_OTHER = _set("object_other")
TOPIC_PREPOSITIONS = _set("topic_prepositions")
STUDY_NOUNS = _set("study_nouns")
ASKING = _set("asking")
INFO_MARKERS = _set("info_markers")

# (category a, category b, multiplier): applied once each when both categories have a personal, non-negated
# match; the product is capped by ToneConfig.max_multiplier.
COMBINATIONS: tuple[tuple[str, str, float], ...] = tuple(
    (a, b, float(f)) for a, b, f in _DATA["combinations"]
)
LEVEL_ALIASES: MappingProxyType[str, str] = MappingProxyType(dict(_DATA["level_aliases"]))

# Support guidance attached to a result (no medical claims).
CRISIS_SUPPORT: str = _DATA["support"]["crisis"]
CARE_EMERGENCY_SUPPORT: str = _DATA["support"]["care_emergency"]
THIRD_PARTY_SUPPORT: str = _DATA["support"]["third_party"]
