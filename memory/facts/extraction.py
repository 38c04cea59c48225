"""Offline, rule-based fact extraction: a user's message -> durable facts as (subject, predicate, object).

No model and no network: the message is split into sentences and clauses, each clause normalised ("Im" ->
"I'm", curly apostrophes, openers like "actually"/"btw", hedges, "I no longer X" -> X + negated, "Rex, not
Max" -> Rex + replaces="Max") and matched against ordered regex rules (`extraction_rules`): schedules
first, then the user's people and pets ("my sister Jo ...", "I have a dog named Rex"), then the user's own
statements. Facts about someone else reuse the user rules on the rest of the clause ("my mom lives in Lyon"
-> "I live in Lyon" about "my mom"). Predicates are phrases `core.relations.canonical_relation`
understands. Questions, hypotheticals, reported speech and passing states ("I'm tired") yield nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from types import MappingProxyType

from core.ports import ExtractedFact
from core.relations import canonical_relation
from memory.facts import extraction_rules as R
from memory.facts.extraction_clauses import (
    DIRECT,
    MAX_EXCERPT,
    Clause,
    clause_texts,
    is_cased,
    prepare,
    split_sentences,
)
from memory.facts.extraction_objects import (
    READERS,
    Part,
    activity,
    base_form,
    names_in,
    when,
)
from memory.facts.extraction_user_rules import USER_RULES

# Quoted passages of several words are someone else's text ("Translate 'I live in Madrid' into Spanish").
# Linear: a quote pair is matched first and its words counted after, so an unclosed quote costs nothing.
_QUOTED = re.compile(r"(?<!\w)'[^'\n]*'(?!\w)|\"[^\"\n]*\"|“[^”\n]*”")


def _drop_quoted(text: str) -> str:
    return _QUOTED.sub(lambda m: " " if len(m.group().split()) >= 3 else m.group(), text)


# "my mom is a nurse" is read by the user rules as "I'm a nurse" about "my mom".
_FIRST_PERSON = MappingProxyType(
    dict.fromkeys(("is", "are"), "I'm")
    | dict.fromkeys(("was", "were"), "I was")
    | {"has": "I have", "does": "I do", "goes": "I go", "doesn't": "I don't", "isn't": "I'm not"}
)
_EPHEMERAL_CATEGORIES = frozenset({"preferences", "goals", "possessions"})


class RuleFactExtractor:
    """`core.ports.FactExtractor` over regex rules: pure, offline, well under a millisecond a message."""

    def extract(self, text: str) -> list[ExtractedFact]:
        """Durable facts stated in `text`, in order, without duplicates."""
        facts: list[ExtractedFact] = []
        seen: set[tuple[str, str, str, bool]] = set()
        for sentence in split_sentences(_drop_quoted(text or "")):
            for fact in sentence_facts(sentence, is_cased(sentence)):
                key = (fact.subject.lower(), fact.predicate, fact.object.lower(), fact.negated)
                if key not in seen:
                    seen.add(key)
                    facts.append(fact)
        return facts


def sentence_facts(sentence: str, cased: bool) -> list[ExtractedFact]:
    """Facts from one sentence: nothing from questions, hypotheticals or reported speech."""
    facts: list[ExtractedFact] = []
    for text in clause_texts(sentence):
        clause = prepare(text, sentence[:MAX_EXCERPT], cased)
        if clause is not None:
            facts.extend(clause_facts(clause))
    return facts


# ---------------------------------------------------------------------------------------------- the rules
def clause_facts(c: Clause) -> list[ExtractedFact]:
    """The first rule family that reads anything from the clause wins; names beside roles always count."""
    return (schedule_facts(c) or family_facts(c) or user_facts(c)) + _appositives(c)


def _appositives(c: Clause) -> list[ExtractedFact]:
    """ "I went hiking with my sister Jo": Jo is the user's sister, whatever the clause is about."""
    facts: list[ExtractedFact] = []
    plain = replace(c, negated=False, replaces=None)
    pairs = [(m.group("role"), m.group("o")) for m in R.APPOSITIVE.finditer(c.text)]
    pairs += [
        (m.group("role") or m.group("role2"), m.group("o") or m.group("o2"))
        for m in R.APPOSITIVE_COMMA.finditer(c.text)
    ]
    for role, name in pairs:
        if name.split()[0].lower() not in R.NOT_NAMES | R.COMMON:
            facts.extend(_naming(plain, role, name))
    return facts


def make_fact(c: Clause, subject: str, part: Part | tuple[str, str, str, float]) -> ExtractedFact:
    predicate, obj, category, confidence = part[:4]
    scope = "user" if subject == "user" else "entity"
    conf = min(c.confidence, confidence)
    return ExtractedFact(subject, predicate, obj, category, scope, c.sentence, conf, c.negated, c.replaces)


def user_facts(c: Clause, subject: str = "user", category: str | None = None) -> list[ExtractedFact]:
    """Facts from the user rules; `subject`/`category` replace "user" for someone else's clause."""
    for rule in USER_RULES:
        match = rule.pattern.match(c.text)
        if match is None or (subject != "user" and rule.kind == "selfname"):
            continue
        if c.ephemeral and (rule.category in _EPHEMERAL_CATEGORIES or rule.kind == "project"):
            continue
        obj = next((v for k, v in match.groupdict().items() if k.startswith("o") and v), "")
        parts = READERS[rule.kind](c.cased, rule, obj)
        if parts:
            return [
                make_fact(c, part.subject or subject, part._replace(category=category or part.category))
                for part in parts
            ]
    return []


# ------------------------------------------------------------------------------------------- schedules
def schedule_facts(c: Clause, subject: str = "user", category: str | None = None) -> list[ExtractedFact]:
    """ "I go to the gym every Monday", "On Tuesdays I have yoga", "my dentist appointment is on March 3"."""
    text = c.text
    lead = R.SCHEDULE_LEAD.match(text)
    if lead:
        text = f"{lead.group('rest')} {lead.group('when')}"
    match = R.SCHEDULE_I.match(text)
    if match:
        act, at = match.group("act"), ""
        verb = act.split()[0].lower()
        if verb in R.NOT_ACTIVITY or verb in R.PAST_TENSE or verb.endswith("ed") or "'" in verb:
            return []  # "I went hiking on Monday" is an event, not a routine
        moved = R.ACT_AT.search(act)  # "swim at 6am every day": the hour belongs to the time
        if moved:
            act, at = act[: moved.start()], moved.group().strip()
        value = f"{when(match.group('when'))} {at}".strip()
        return [make_fact(c, subject, (activity(act), value, category or "schedules", DIRECT))]
    match = R.SCHEDULE_MY.match(text) if subject == "user" else None
    return _my_schedule(c, match) if match else []


def _my_schedule(c: Clause, match: re.Match[str]) -> list[ExtractedFact]:
    event = " ".join(match.group("event").split())
    subject, category = "user", "schedules"
    owner = re.match(rf"^(?P<role>{R.KIN})'s\s+(?P<event>.+)$", event, re.I)
    if owner:
        subject, event = f"my {owner.group('role').lower()}", owner.group("event")
        category = _kin_category(owner.group("role"))
    if event.lower() == "birthday" and subject == "user":
        category = "identity"
    return [make_fact(c, subject, (event, when(match.group("when")), category, DIRECT))]


# --------------------------------------------------------------------------------------- people and pets
def family_facts(c: Clause) -> list[ExtractedFact]:
    for reader in _FAMILY_READERS:
        facts = reader(c)
        if facts:
            return facts
    return []


def _kin_category(role: str) -> str:
    role = role.lower()
    return "pets" if role in R.PET_WORDS else "work" if role in R.WORK_ROLES else "family"


def _naming(c: Clause, role: str, name: str) -> list[ExtractedFact]:
    role = " ".join(role.lower().split())
    role = R.ROLE_ALIASES.get(role, role)
    return [make_fact(c, f"my {role}", ("named", name, _kin_category(role), DIRECT))]


def _pet(c: Clause, kind: str, name: str) -> list[ExtractedFact]:
    """The user's pet by name: "has a dog"/"has a cat" carry the kind; other kinds get an `is a` fact."""
    kind = " ".join(kind.lower().split())
    if kind in R.PET_PREDICATES:
        return [make_fact(c, "user", (R.PET_PREDICATES[kind], name, "pets", DIRECT))]
    return [
        make_fact(c, "user", ("has pet", name, "pets", DIRECT)),
        make_fact(c, name, ("is a", kind, "pets", DIRECT)),
    ]


def _named_kin(c: Clause, role: str, names: list[str]) -> list[ExtractedFact]:
    facts: list[ExtractedFact] = []
    for name in names:
        facts.extend(_pet(c, role, name) if role.lower() in R.PET_WORDS else _naming(c, role, name))
    return facts


def _f_named(c: Clause) -> list[ExtractedFact]:
    """ "my sister's name is Jo", "my kids are Tom and Lily", "I have a brother named Tom", "wed to Ana"."""
    for pattern, strong in ((R.F_NAME_IS, True), (R.F_CALLED, True), (R.F_IS_MY, True), (R.F_MY_IS, False)):
        match = pattern.match(c.text)
        if match is None:
            continue
        role = " ".join(match.group("role").lower().split())
        singular = _singular(role)
        names = names_in(match.group("o"), c.cased, strong=strong, many=singular != role)
        if names:
            return [fact for name in names for fact in _naming(c, singular, name)]
    adopted = R.F_ADOPTED.match(c.text) if c.cased else None
    if adopted and adopted.group("o").lower() not in R.COMMON | R.NOT_NAMES:  # "We adopted Pickles!"
        return [make_fact(c, "user", ("has pet", adopted.group("o"), "pets", DIRECT))]
    match = R.F_HAVE_NAMED.match(c.text)
    if match:
        return _named_kin(c, match.group("role"), names_in(match.group("o"), c.cased, strong=True))
    match = R.F_MARRIED.match(c.text)
    names = names_in(match.group("o"), c.cased, strong=True, many=False) if match else []
    if match is None or not names:
        return []
    return _naming(c, "spouse" if match.group("how").lower() == "married" else "fiance", names[0])


def _singular(role: str) -> str:
    if role in R.SINGULAR:
        return R.SINGULAR[role]
    return role[:-1] if role.endswith("s") and role not in ("boss", "bus") else role


def _f_count(c: Clause) -> list[ExtractedFact]:
    """ "I have two kids", "I have two cats, Milo and Otis", "i have a dog"."""
    match = R.F_HAVE_COUNT.match(c.text)
    if match is None:
        return []
    role, rest = " ".join(match.group("role").lower().split()), match.group("o") or ""
    singular = _singular(role)
    names = names_in(rest, c.cased, strong=bool(re.match(r"\s*(?:named|called)\b", rest))) if rest else []
    if names:
        return _named_kin(c, singular, names)
    count = R.NUMBERS.get(" ".join(match.group("n").lower().split()), match.group("n"))
    if role in R.PET_WORDS:
        obj = singular if count == "1" else f"{match.group('n')} {role}"
        return [make_fact(c, "user", ("owns", obj, "pets", DIRECT))]
    plural = role if role != singular else _plural(role)
    plural = R.PLURAL_ROLE_NAMES.get(plural, plural)
    conf = DIRECT if count != "1" else 0.7
    return [make_fact(c, "user", (f"number of {plural}", count, "family", conf))]


def _plural(role: str) -> str:
    return {"child": "children", "kid": "children", "baby": "children"}.get(role, role + "s")


def _f_rest(c: Clause) -> list[ExtractedFact]:
    """ "my mom lives in Lyon", "my sister Jo is a nurse": the user rules, about someone else."""
    match = R.F_REST.match(c.text)
    if match is None:
        return []
    role, rest = " ".join(match.group("role").lower().split()), match.group("rest")
    role = R.ROLE_ALIASES.get(role, role)
    facts: list[ExtractedFact] = []
    subject = f"my {role}"
    relative = R.RELATIVE.match(rest) if c.cased else None
    if relative:
        rest = f"{relative.group('name')} {relative.group('rest')}"
    name, after = _peel_name(rest, c.cased)
    if name:
        facts, subject, rest = _naming(c, role, name), name, after
        if relative:
            facts += _about(c, name, f"is {relative.group('what')}", _kin_category(role))
    return facts + _about(c, subject, rest, _kin_category(role))


def _f_person(c: Clause) -> list[ExtractedFact]:
    """ "Sam moved to Porto", "Jo works at Acme now": where a named person lives, works or studies and
    what they do. Only in cased text (a capital is what makes "Sam" a name) and only those relations, so
    "Python is great" or "Monday works for me" say nothing."""
    if not c.cased:
        return []
    name, rest = _peel_name(c.text, cased=True)
    if name is None or name.split()[0].lower() in R.NOT_NAMES:
        return []
    facts = _about(c, name, rest, None)
    return [f for f in facts if _teaches_about_a_person(f)]


def _teaches_about_a_person(fact: ExtractedFact) -> bool:
    """Where they live, work or study, and "is a" only as an occupation (not "Python is a language")."""
    relation = canonical_relation(fact.predicate)[0]
    return relation in R.PERSON_RELATIONS and (relation != "is_a" or fact.category == "work")


def _about(c: Clause, subject: str, rest: str, category: str | None) -> list[ExtractedFact]:
    """The user rules on "<subject> <rest>" read as "I <rest>": "lives in Lyon" -> "I live in Lyon"."""
    if not R.THIRD_PERSON_VERB.match(rest):
        return []
    words = rest.split()
    while len(words) > 1 and words[0].lower() in R.VERB_ADVERBS:  # "only speaks", "now lives"
        words.pop(0)
    first = _FIRST_PERSON.get(words[0].lower()) or f"I {base_form(words[0])}"
    inner = prepare(" ".join([first, *words[1:]]), c.sentence, c.cased)
    if inner is None:
        return []
    inner = Clause(
        inner.text,
        c.sentence,
        c.cased,
        min(c.confidence, inner.confidence),
        c.ephemeral,
        inner.negated or c.negated,
        c.replaces,
    )
    return schedule_facts(inner, subject, category) or user_facts(inner, subject, category)


def _peel_name(rest: str, cased: bool) -> tuple[str | None, str]:
    """ "Jo is a nurse" -> ("Jo", "is a nurse"); a name is followed by a verb."""
    words = rest.split()
    taken = 0
    while taken < min(3, len(words) - 1) and _name_word(words[taken], cased, taken == 0):
        taken += 1
        if not cased:
            break
    if taken and R.THIRD_PERSON_VERB.match(" ".join(words[taken:])):
        return " ".join(words[:taken]).strip(","), " ".join(words[taken:])
    return None, rest


def _name_word(word: str, cased: bool, first: bool) -> bool:
    low = word.lower().strip(",.")
    if low in R.COMMON or R.THIRD_PERSON_VERB.match(low) or not word[:1].isalpha():
        return False
    return word[:1].isupper() or (not cased and first)


_FAMILY_READERS: tuple[Callable[[Clause], list[ExtractedFact]], ...] = (
    _f_named,
    _f_count,
    _f_rest,
    _f_person,
)
