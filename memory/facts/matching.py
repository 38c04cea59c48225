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


# Relation words that name no thing: "likes", "is a", "works at", "goes".
_RELATION_WORDS = frozenset("is a an at in of to for with likes loves does goes has have works lives".split())


def names_same_thing(obj: str, relation: str, other: str) -> bool:
    """Whether `obj` names the thing a fact (`relation`, `other`) is about: the same object, the same head
    noun ("Corolla" and "red Toyota Corolla"), or a word of the relation itself ("climbing" and
    "goes_rock_climbing"), compared by stem ("nursing" and "nurse")."""
    if same_object(obj, other):
        return True
    words = object_key(obj).split()
    if not words:
        return False
    head = words[-1]
    others = object_key(other).split()[-1:] + [w for w in relation.split("_") if w not in _RELATION_WORDS]
    return any(w == head or len(stem(head)) >= _MIN_STEM and stem(w) == stem(head) for w in others)
