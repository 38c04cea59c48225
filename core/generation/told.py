"""What the user told, said back to them: the summary of what is remembered, and the acknowledgement of a
statement the embedded model would otherwise answer with invented text.

Both are built from facts only (the verified store's, or the ones just read from the message), each stated
in the second person ("you live in Gothenburg"); an animal's kind joins its name ("you have a grey cat
called Pepper" for "user has_pet Pepper" and "Pepper is_a grey cat").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.relations import NO_LONGER, USER_ID, canonical_relation, fact_sentence, fact_to_user, normalize

# The summary's groups, in order: category -> its label. Facts of the user's people go under "People".
_GROUPS = {
    "identity": "You",
    "location": "Home",
    "work": "Work",
    "family": "People",
    "pets": "Pets",
    "preferences": "Likes and dislikes",
    "goals": "Plans",
    "schedules": "Routines",
    "possessions": "Things you have",
}
_OTHER = "Other"
_USER_WORDS = {USER_ID, "i", "me", "myself"}
SUMMARY_LIMIT = 16  # facts shown; the Memory tab and `facts list` show them all
_ASKS_FOR_SUMMARY = re.compile(
    r"^\W*(?:(?:so|ok|okay|hey|hi|daemon|and)\W+)*"
    r"(?:what (?:do|did) you (?:remember|know|recall) (?:about|of) me"
    r"|what have i told you(?: about (?:me|myself))?"
    r"|tell me (?:what|everything) you (?:know|remember) about me"
    r"|what do you know|who am i|remind me (?:of )?what you know about me)(?: so far)?\W*$",
    re.I,
)


@dataclass(frozen=True)
class Told:
    """One fact as the user would say it: subject, relation (canonical), object; `ended` marks a change
    ("no longer ..."); `id` and `category` when it comes from the store."""

    subject: str
    relation: str
    object: str
    category: str = ""
    id: str = ""
    ended: bool = False


def asks_for_summary(text: str) -> bool:
    """Whether a message asks what Daemon remembers about the user as a whole ("What do you remember
    about me?", "Who am I?")."""
    return bool(_ASKS_FOR_SUMMARY.match(" ".join(text.split())))


def told_sentences(facts: Sequence[Told]) -> list[tuple[Told, str]]:
    """Each fact with its sentence to the user, an animal's kind folded into the sentence naming it."""
    kinds = {
        normalize(f.subject): f.object
        for f in facts
        if f.relation == "is_a"
        and any(g.relation == "has_pet" and normalize(g.object) == normalize(f.subject) for g in facts)
    }
    out = []
    for fact in facts:
        if fact.relation == "is_a" and normalize(fact.subject) in kinds:
            continue  # said with the pet's name
        if fact.relation == "has_pet" and (kind := kinds.get(normalize(fact.object))):
            owner = "you have" if normalize(fact.subject) in _USER_WORDS else f"{fact.subject} has"
            out.append((fact, f"{owner} {_article(kind)} called {fact.object}"))
            continue
        relation = NO_LONGER + fact.relation if fact.ended else fact.relation
        out.append((fact, fact_to_user(fact_sentence(fact.subject, relation, fact.object)).rstrip(".")))
    return out


def _article(noun: str) -> str:
    if re.match(r"(?i)(a|an|the|my|your)\s", noun):
        return noun
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def summary(facts: Sequence[Told], markers: Mapping[str, str] | None = None) -> str:
    """What Daemon remembers about the user, grouped by kind, each fact with its citation marker."""
    if not facts:
        return (
            "I don't know anything about you yet. Tell me about yourself (your name, your work, the people "
            "and animals in your life) and I'll remember it."
        )
    markers = markers or {}
    shown = facts[:SUMMARY_LIMIT]
    groups: dict[str, list[str]] = {}
    for fact, sentence in told_sentences(shown):
        mine = normalize(fact.subject) in _USER_WORDS
        label = _GROUPS.get(fact.category, _OTHER) if mine or fact.category == "pets" else "People"
        marker = markers.get(fact.id, "")
        groups.setdefault(label, []).append(sentence + (f" {marker}" if marker else ""))
    order = [*dict.fromkeys([*_GROUPS.values(), _OTHER])]
    lines = [f"- **{label}:** {'; '.join(groups[label])}" for label in order if label in groups]
    more = len(facts) - len(shown)
    tail = f"\n\n…and {more} more in the Memory tab." if more > 0 else ""
    return "Here's what you've told me:\n\n" + "\n".join(lines) + tail


def acknowledgement(facts: Sequence[Told]) -> str | None:
    """A reply to a statement that told facts: a greeting by the name it gave and what will be
    remembered ("Nice to meet you, Maya! I'll remember that you're a veterinary nurse, you live in
    Gothenburg and you have a grey cat called Pepper."); None when it told none."""
    if not facts:
        return None
    names = [f.object for f in facts if f.relation == "named" and normalize(f.subject) in _USER_WORDS]
    rest = [f for f in facts if not (f.relation == "named" and normalize(f.subject) in _USER_WORDS)]
    greeting = f"Nice to meet you, {names[0].split()[0]}!" if names else ""
    sentences = [sentence for _, sentence in told_sentences(rest)]
    if not sentences:
        return greeting or None
    remembered = f"I'll remember that {_joined(sentences)}."
    return f"{greeting} {remembered}" if greeting else f"Got it. {remembered}"


def _joined(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def told_from_extracted(subject: str, predicate: str, obj: str, *, ended: bool = False) -> Told:
    """A fact read from a message (`ExtractedFact`'s phrase predicate) as a `Told`."""
    relation, swapped = canonical_relation(predicate)
    if swapped:
        subject, obj = obj, subject
    return Told(subject, relation, obj, ended=ended)
