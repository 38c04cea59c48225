"""When two stated objects are the same thing: "tennis" and "playing tennis", "teaching" and "a teacher".

The store keeps objects as the user said them; a retraction or a restatement rarely repeats the words
("I play tennis" ... "I no longer play tennis"; "I'm a teacher" ... "I left teaching"). Objects are compared
by a key without determiners and light gerunds, and one-word objects also by their stem (so a trade and the
person who does it match). Pure functions; no vocabulary beyond a few function words.
"""

from __future__ import annotations

from core.relations import normalize

_LEAD = frozenset("a an the my our some any".split())
# "playing tennis", "doing yoga": the gerund says nothing the object does not
_LIGHT = frozenset("playing doing going practising practicing having taking watching".split())
_SUFFIXES = ("ing", "er", "or", "ist", "ian", "ant")
_MIN_STEM = 4


def object_key(text: str) -> str:
    """ "the tennis" / "playing tennis" -> "tennis"; "a Teacher" -> "teacher"."""
    words = normalize(text).split()
    while len(words) > 1 and words[0] in _LEAD:
        words.pop(0)
    if len(words) > 1 and words[0] in _LIGHT:
        words.pop(0)
    return " ".join(words)


def stem(word: str) -> str:
    """ "teaching"/"teacher" -> "teach", "nursing"/"nurse" -> "nurs"; short words are their own stem."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > _MIN_STEM else word


def same_object(a: str, b: str) -> bool:
    """Whether two objects name the same thing (by key; one-word objects also by stem)."""
    ka, kb = object_key(a), object_key(b)
    if ka == kb:
        return bool(ka)
    return " " not in ka and " " not in kb and len(stem(ka)) >= _MIN_STEM and stem(ka) == stem(kb)
