"""Reading the object of a matched rule: trimming filler, splitting lists, names, places, organisations.

Each reader takes the matched object text and returns (predicate, object, category, confidence) parts; an
empty list means the match was not a fact after all ("I have a question", "I'm a bit tired").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from memory.facts import extraction_rules as R
from memory.facts.extraction_user_rules import Rule


class Part(NamedTuple):
    """What a reader found; `subject` None means the clause's subject (the user, or "my mom")."""

    predicate: str
    object: str
    category: str
    confidence: float
    subject: str | None = None


Reader = Callable[[bool, Rule, str], list[Part]]
_NAME_PARTICLES = frozenset("van von de da del der la le di du bin al".split())
# A preposition inside "<kind> called <name>": the name then belongs to the noun after it.
_LINKED = re.compile(r"\s(?:at|for|with|in|from|of|on|near|by|under|behind)\s", re.I)
_NOT_POSSESSION_START = frozenset("to been had no got some any lots nothing fun always never".split())


def _part(rule: Rule, obj: str, predicate: str | None = None, category: str | None = None) -> Part:
    return Part(predicate or rule.predicate, obj, category or rule.category, rule.confidence)


def trim(text: str) -> str:
    """Drop trailing punctuation and filler ("now", "these days", "for five years")."""
    previous = None
    text = text.strip()
    while previous != text:
        previous = text
        text = R.TAIL.sub("", text).strip()
    return text.strip(" \"'")


def is_object(text: str) -> bool:
    low = text.lower()
    return (
        bool(low)
        and low not in R.PRONOUN_OBJECTS
        and low not in R.COMMON
        and len(low) <= 80
        and (low.count(" ") < 8)
    )


def names_in(text: str, cased: bool, *, strong: bool, many: bool = True) -> list[str]:
    """Names at the start of `text` ("Milo and Otis" -> both). Weak contexts need a capital letter."""
    names: list[str] = []
    for chunk in R.SPLIT.split(trim(text)):
        words = chunk.split()
        if not words or words[0].lower().strip(",.") in R.COMMON or not words[0][:1].isalpha():
            break
        if not words[0][:1].isupper() and not strong:
            break  # "my sister is visiting": only a capital makes a name here
        taken = [words[0]]
        for word in words[1:]:
            nxt = word[:1].isupper() or (word.lower() in _NAME_PARTICLES and word is not words[-1])
            if not (words[0][:1].isupper() and nxt) or len(taken) >= 4:
                break
            taken.append(word)
        names.append(" ".join(taken).strip(",.!"))
        if not many:
            break
    return names


def _things(obj: str, cut: re.Pattern[str] = R.THING_CUT) -> list[str]:
    """The items of a list ("hiking, jazz and sushi"); none when it opens with "how this..." or "that"."""
    out: list[str] = []
    for part in R.SPLIT.split(cut.sub("", trim(obj))):
        part = R.ARTICLE.sub("", trim(part))
        first = part.split()[0].lower() if part else ""
        if out and re.fullmatch(r"(?:19|20)\d\d", first):
            continue  # "a Honda Civic, 2015 model": not a second thing
        if not is_object(part) or first in R.DEICTIC or (out and first in R.NOT_LIST_ITEM):
            if not out:
                return []  # "I love how this turned out, thanks": not a list of tastes
            continue
        out.append(part)
    return out


def _gerund(verb: str) -> str:
    low = verb.lower()
    if low.endswith("ie"):
        return verb[:-2] + "ying"
    if low.endswith("e") and not low.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnprt]", low):
        return verb + verb[-1] + "ing"
    return verb + "ing"


def activity(act: str) -> str:
    """The activity as a predicate: "go to the gym" -> "goes to the gym", "have yoga" -> "yoga"."""
    words = act.split()
    if words[0].lower() == "have" and len(words) > 1:
        return R.ARTICLE.sub("", re.sub(r"^my\s+", "", " ".join(words[1:]), flags=re.I))
    return " ".join([third_person(words[0]), *words[1:]])


def third_person(verb: str) -> str:
    low = verb.lower()
    if low in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[low]
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def when(text: str) -> str:
    """A time as a value: "on Tuesdays" -> "every Tuesday", "on March 3" -> "March 3"."""
    text = " ".join(text.split())
    plural = R.PLURAL_DAY.match(text)
    if plural:
        return "every " + R.DAY_PLURAL_WORD.sub(lambda m: m.group("w"), plural.group("days"))
    return re.sub(r"^on\s+(?:the\s+)?", "", text, flags=re.I)


def base_form(verb: str) -> str:
    """ "lives" -> "live", "studies" -> "study", "watches" -> "watch"."""
    low = verb.lower()
    if low.endswith("ies"):
        return verb[:-3] + "y"
    if re.search(r"(?:ch|sh|ss|x)es$", low):
        return verb[:-2]
    return verb[:-1] if low.endswith("s") and not low.endswith("ss") else verb


def _read_name(cased: bool, rule: Rule, obj: str) -> list[Part]:
    names = names_in(obj, cased, strong=True, many=False)
    return [_part(rule, names[0])] if names else []


def _read_selfname(cased: bool, rule: Rule, obj: str) -> list[Part]:
    """ "I'm Priya": only a capitalised word that is not a nationality or a state."""
    words = obj.split()
    low = {w.lower() for w in words}
    if not all(w[:1].isupper() for w in words) or low & (R.COMMON | R.NATIONALITIES | R.IDENTITY_ADJECTIVES):
        return []
    return [_part(rule, obj)]


def _read_age(cased: bool, rule: Rule, obj: str) -> list[Part]:
    age = R.age_value(obj)
    return [_part(rule, str(age))] if age is not None and 0 < age < 120 else []


def _read_adjective(cased: bool, rule: Rule, obj: str) -> list[Part]:
    low = obj.lower()
    keep = low in R.IDENTITY_ADJECTIVES or low in R.NATIONALITIES
    return [_part(rule, obj)] if keep else []


def _read_place(cased: bool, rule: Rule, obj: str) -> list[Part]:
    """ "Portland, Oregon" stays whole; "Austin for work" -> "Austin"."""
    head, _, region = trim(obj).partition(",")
    head = R.PLACE_CUT.sub("", head).strip()
    region = trim(region)
    if region and len(region.split()) <= 3 and all(w[:1].isupper() for w in region.split()):
        head = f"{head}, {region}"
    place = R.ARTICLE.sub("", trim(head))
    dwelling = R.DWELLING.match(place)
    if dwelling:
        place = dwelling.group("o")
    return [_part(rule, place)] if is_object(place) else []


def _read_org(cased: bool, rule: Rule, obj: str) -> list[Part]:
    """ "the city council as a planner" -> works at "city council" and is a "planner"."""
    parts: list[Part] = []
    role = R.AS_ROLE.search(obj)
    if role:
        parts.append(_part(rule, trim(role.group("role")), "is a"))
        obj = obj[: role.start()] + obj[role.end() :]
    org = R.ARTICLE.sub("", trim(R.ORG_CUT.sub("", R.NAMED_AS.sub("", trim(obj)))))
    if is_object(org):
        parts.insert(0, _part(rule, org))
    return parts if is_object(org) else []


def _read_project(cased: bool, rule: Rule, obj: str) -> list[Part]:
    project = R.ARTICLE.sub("", trim(R.ORG_CUT.sub("", R.NAMED_AS.sub("", trim(obj)))))
    return [_part(rule, project)] if is_object(project) else []


def _read_isa(cased: bool, rule: Rule, obj: str) -> list[Part]:
    """ "a nurse"; "a software engineer at Google" (+ works at); "a student at MIT"; "a fan of X"."""
    obj = R.ARTICLE.sub("", trim(obj))
    words = obj.split()
    fan = R.FAN_OF.match(obj) or R.FAN.match(obj)
    if fan or not words or words[0].lower() in R.NOT_A_ROLE:
        return [_part(rule, t, "likes", "preferences") for t in _things(fan.group("o"))] if fan else []
    aged = R.AGED.match(obj)
    if aged:  # "a 28-year-old grad student from Lagos"
        age = _read_age(cased, Rule(rule.pattern, "age", "identity", "age"), aged.group("age"))
        return [*age, *_read_isa(cased, rule, aged.group("rest"))]
    origin = R.FROM_PLACE.search(obj)
    if origin:
        home = _part(Rule(rule.pattern, "is from", "location", "place"), origin.group("place"))
        return [*_read_isa(cased, rule, obj[: origin.start()]), home]
    named = _named_kind(obj, cased, R.NAMED_THING)
    if named:  # "my dog is a golden retriever named Biscuit"
        name, what = named
        return [_part(rule, name, "named"), Part("is a", what, rule.category, rule.confidence, name)]
    based = R.BASED_IN.match(obj)
    if based:
        place = _read_place(cased, Rule(rule.pattern, "lives in", "location", "place"), based.group("place"))
        return [*_read_isa(cased, rule, based.group("role")), *place]
    student = R.STUDENT.match(obj)
    if student:
        return _read_org(cased, Rule(rule.pattern, "studies at", "work", "org"), student.group("o"))
    at_org = R.AT_ORG.match(obj)
    if at_org:
        works = _read_org(cased, Rule(rule.pattern, "works at", "work", "org"), at_org.group("org"))
        role = trim(at_org.group("role"))
        return [_part(rule, role, "is a", "work"), *works] if works and len(role.split()) <= 4 else []
    role = trim(R.ROLE_CUT.sub("", R.THING_CUT.sub("", obj)))
    if not is_object(role) or len(role.split()) > 4:
        return []
    return [_part(rule, role)]


def _read_job(cased: bool, rule: Rule, obj: str) -> list[Part]:
    if re.match(r"^(?:a|an)\s", obj, re.I):
        return _read_isa(cased, Rule(rule.pattern, "is a", "work", "isa"), obj)
    if re.match(r"^(?:at|with|for)\s", obj, re.I):
        return _read_org(cased, Rule(rule.pattern, "works at", "work", "org"), obj.split(None, 1)[1])
    job = trim(R.VP_CUT.sub("", obj))
    return [_part(rule, job)] if is_object(job) else []


def _read_things(cased: bool, rule: Rule, obj: str) -> list[Part]:
    things = _things(obj)
    if rule.predicate == "speaks":  # "a little Japanese" -> "Japanese"
        things = [R.LANGUAGE_LEVEL.sub("", thing) for thing in things]
    return [_part(rule, thing) for thing in things]


def _read_likes(cased: bool, rule: Rule, obj: str) -> list[Part]:
    """ "hiking and jazz" -> two; "to cook Thai food" -> "cooking Thai food"."""
    infinitive = re.match(r"^to\s+(\w+)(.*)$", obj.strip(), re.I)
    if infinitive:
        obj = _gerund(infinitive.group(1)) + infinitive.group(2)
    return _read_things(cased, rule, obj)


def _read_prefer(cased: bool, rule: Rule, obj: str) -> list[Part]:
    return _read_likes(cased, rule, R.PREFER_CUT.sub("", obj))


def _read_vp(cased: bool, rule: Rule, obj: str) -> list[Part]:
    goal = trim(R.VP_CUT.sub("", trim(obj)))
    words = goal.split()
    pointing = {w.lower().strip(",.") for w in words[1:]} & R.PRONOUN_OBJECTS  # "sort them", "fix this bug"
    if not words or words[0].lower() in R.NOT_A_GOAL or len(words) > 12 or pointing or not is_object(goal):
        return []
    return [_part(rule, goal)]


def _read_learning(cased: bool, rule: Rule, obj: str) -> list[Part]:
    """ "I'm learning Spanish" -> wants to "learn Spanish"."""
    return _read_vp(cased, rule, re.sub(r"^learning\b", "learn", obj, flags=re.I))


def _read_text(cased: bool, rule: Rule, obj: str) -> list[Part]:
    text = trim(obj)
    return [_part(rule, text)] if is_object(text) else []


def _named_kind(obj: str, cased: bool, *patterns: re.Pattern[str]) -> tuple[str, str] | None:
    """ "a golden retriever called Sunny" -> ("Sunny", "golden retriever"), by the first pattern matching.
    None when a preposition stands between the kind and the name: "a sound engineer at a studio called
    Bluefin Audio" names the studio (the nearest noun), not the clause's subject."""
    named = next((match for pattern in patterns if (match := pattern.match(obj))), None)
    if named is None or _LINKED.search(named.group("what")):
        return None
    names = names_in(named.group("o"), cased, strong=True, many=False)
    return (names[0], R.ARTICLE.sub("", trim(named.group("what")))) if names else None


def _read_possess(cased: bool, rule: Rule, obj: str) -> list[Part]:
    """ "a Raspberry Pi", "a PS5 and a Nintendo Switch"; not "a question", "a headache", "to go"."""
    obj = trim(obj)
    first = obj.split()[0].lower() if obj else ""
    if first in _NOT_POSSESSION_START:
        return []
    named = _named_kind(obj, cased, R.NAMED_THING, R.KIND_COMMA_NAME)
    if named:  # "a golden retriever called Sunny", "a labrador, Biscuit": the user has Sunny
        name, what = named
        kind = what.lower().split()[-1] if what else ""
        if kind in R.PET_WORDS or kind in R.ANIMAL_KINDS:
            return [_part(rule, name, "has pet", "pets"), Part("is a", what, "pets", rule.confidence, name)]
        return [_part(rule, name), Part("is a", what, rule.category, rule.confidence, name)]
    parts: list[Part] = []
    for thing in _things(obj, R.POSSESS_CUT):
        words = {w.lower().strip(",.") for w in thing.split()}
        if words & R.NOT_OWNED:
            return []
        category = "pets" if thing.lower() in R.PET_WORDS else rule.category
        parts.append(_part(rule, thing, category=category))
    return parts


READERS: Mapping[str, Reader] = MappingProxyType(
    {
        "name": _read_name,
        "selfname": _read_selfname,
        "age": _read_age,
        "adjective": _read_adjective,
        "place": _read_place,
        "org": _read_org,
        "project": _read_project,
        "isa": _read_isa,
        "job": _read_job,
        "things": _read_things,
        "likes": _read_likes,
        "prefer": _read_prefer,
        "vp": _read_vp,
        "learning": _read_learning,
        "text": _read_text,
        "possess": _read_possess,
    }
)
