"""The grammar fact reader: durable facts from spaCy's dependency parse, the regex rules filling in.

Each sentence of a message is parsed once (the process's one `core.nlp.SpacyPipeline`, shared with the
topic extractor) and read as verb frames (`grammar_frames`, `grammar_frames_be`): the verb's lemma picks the
frame, the parse gives its subject ("my wife and I" -> both), its prepositions ("from Boston to Denver"),
its objects and its stance (`grammar_clauses`: questions, hypotheticals, hearsay and wishes state nothing;
"not", "no longer", "anymore", "used to" negate). The regex rules (`extraction.sentence_facts`) still read
what no frame covers (schedules, goals, birthdays, counts of children, "X is not my thing"), and the
relations a frame owns are taken from the frames whenever the sentence has such a verb: a move, a switch,
a stop, a rename come from the parse, never from a phrase list.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from core.ports import ExtractedFact
from core.relations import REPLACES_VALUE, canonical_relation, normalize
from memory.facts import extraction_rules as R
from memory.facts.extraction import _drop_quoted, sentence_facts
from memory.facts.extraction_clauses import DIRECT, MAX_EXCERPT, is_cased, split_sentences
from memory.facts.extraction_objects import is_object, trim
from memory.facts.grammar_clauses import Stance, stance
from memory.facts.grammar_frames import FRAMES, NOUN_FRAMES, Frame, Reading
from memory.facts.grammar_frames_be import (
    BE_FRAMES,
    HABIT,
    allergy,
    appositive_names,
    as_a,
    ended_activity,
    habit,
    not_a_fan,
    said_alone,
)
from memory.facts.grammar_phrases import USER, Who, subjects
from memory.facts.matching import names_same_thing

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

    from core.nlp import SpacyPipeline

_NORMAL = (
    (re.compile("[’‘]"), "'"),
    (re.compile("[“”]"), '"'),
    (re.compile(r"(?<![\w'])i(?=$|[\s,.!?;:'])"), "I"),
    (re.compile(r"\bim\b", re.I), "I'm"),
    (re.compile(r"\bive\b", re.I), "I've"),
    (re.compile(r"\b(dont|doesnt|didnt|cant|wont|isnt)\b", re.I), lambda m: m.group()[:-1] + "'t"),
    # "my daughter's allergic to peanuts": the 's of a role before a state is "is", not a possessive
    (
        re.compile(
            r"\b((?i:my|our)\s+[a-z-]+)'s\s+(?=(?i:a|an|not|from|in|at|still|now|allergic|married|engaged|"
            r"obsessed|fluent|vegan|vegetarian|retired|always|also|really|so|very|only|\d+)\b)"
        ),
        r"\1 is ",
    ),
    # "Ana's in Madrid now", "Sam's a nurse": after a name too (not "Ana's in-laws")
    (
        re.compile(
            r"\b((?<!')[A-Z][a-z]+)'s\s+(?=(?:in|at|from|now|still|a|an|not|home|married|engaged|allergic|"
            r"vegan|vegetarian|retired)\b(?!-))"
        ),
        r"\1 is ",
    ),
    (re.compile(r"\b(name|names)'s\b", re.I), r"\1 is"),  # "her name's Olive"
    (re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d]+"), " "),
    # "Correction: the cat is called Mochi", "Update: ...": a one-word label before a colon is no sentence
    (re.compile(r"^\s*[A-Za-z]+\s*:\s+(?=\S)"), ""),
)
_KIN_CATEGORY = {"pets": "pets", "work": "work"}
# Relations read about a person known by name only ("Sam moved to Porto"): home, work, study, occupation.
_NAMED_PERSON = frozenset({"lives_in", "works_at", "studies_at", "born_in", "is_a"})


_NOUN_FRAMES: dict[str, Frame] = {**NOUN_FRAMES, "fan": not_a_fan, "allergy": allergy, "intolerance": allergy}


def _normal(sentence: str) -> str:
    for pattern, repl in _NORMAL:
        sentence = pattern.sub(repl, sentence)
    return " ".join(sentence.split())


class GrammarFactExtractor:
    """`core.ports.FactExtractor` over the dependency parse, with the regex rules for what it has no frame
    for. `rules=False` reads with the frames alone (for measuring them)."""

    def __init__(self, nlp: SpacyPipeline, *, rules: bool = True) -> None:
        self._nlp = nlp
        self._rules = rules

    def extract(self, text: str) -> list[ExtractedFact]:
        """Durable facts stated in `text`, in order, without duplicates."""
        facts: list[ExtractedFact] = []
        seen: set[tuple[str, str, str, bool]] = set()
        for sentence in split_sentences(_drop_quoted(self._nlp.cut(text or ""))):
            for fact in self.sentence(sentence):
                key = (
                    fact.subject.lower(),
                    canonical_relation(fact.predicate)[0],
                    normalize(fact.object),
                    fact.negated,
                )
                if key not in seen:
                    seen.add(key)
                    facts.append(fact)
        return facts

    def sentence(self, sentence: str) -> list[ExtractedFact]:
        """The frames' facts of one sentence, then the rules' facts for relations no frame verb owns here.
        A correction ("the cat is Mochi not Miso", "I'm 34, not 43") is read from its new half alone, each
        fact of the new value naming the value it replaces; the old value is not stated again."""
        normal = _normal(sentence)
        replaced = _correction(normal)
        text = replaced[0] if replaced else normal
        doc = self._nlp(text)
        found = read_doc(doc, sentence[:MAX_EXCERPT])
        if self._rules:
            # A relation the parse read in this sentence is the parse's alone: the rules' reading of the
            # same words ("moved from Boston to Denver" as one place) would only add a worse copy.
            owned = {canonical_relation(f.predicate)[0] for f in found}
            said = text if replaced else sentence
            read = {tuple(normalize(f.object).split()) for f in found}
            found += [
                replace(f, object=_clause_cut(f.object))
                for f in sentence_facts(said, is_cased(said))
                if canonical_relation(f.predicate)[0] not in owned and not _worse_copy(f.object, read)
            ]
        found = _habits_filed(found)
        found = [_replacing(f, *replaced) for f in found] if replaced else found
        if not any(f.replaces for f in found):
            found += value_swap(doc, replaced, sentence[:MAX_EXCERPT])
        return found


def _habits_filed(found: list[ExtractedFact]) -> list[ExtractedFact]:
    """The general reading's habits under "preferences", less those another fact of the sentence states
    better: "I drive a Corolla" is owning it; "I play poker every Friday" is the schedule."""
    others = [f for f in found if f.category != HABIT]
    kept = []
    for fact in found:
        if fact.category != HABIT:
            kept.append(fact)
        elif not any(_states(other, fact.object) for other in others):
            kept.append(replace(fact, category="preferences"))
    return kept


def _states(fact: ExtractedFact, thing: str) -> bool:
    """Whether `fact` already says something of `thing`."""
    return names_same_thing(thing, canonical_relation(fact.predicate)[0], fact.object)


def read_doc(doc: Doc, excerpt: str) -> list[ExtractedFact]:
    """Facts of a parsed sentence."""
    facts: list[ExtractedFact] = []
    for token in doc:
        frames = _frames(token)
        if frames:
            facts += _read(token, frames, excerpt)
        facts += [_fact(r, Who(r.subject or USER, True), Stance(), excerpt) for r in appositive_names(token)]
    return facts


def _frames(token: Token) -> list[Frame]:
    if token.pos_ == "NOUN":
        return [_NOUN_FRAMES[token.lemma_]] if token.lemma_ in _NOUN_FRAMES else []
    if token.pos_ == "ADP":
        return [as_a] if token.lower_ == "as" else []
    if token.pos_ == "ADJ":
        return [said_alone]
    if token.pos_ not in ("VERB", "AUX"):
        return []
    frames = [f for f in (FRAMES.get(token.lemma_), BE_FRAMES.get(token.lemma_)) if f is not None]
    return frames or [ended_activity, habit]


def _read(verb: Token, frames: list[Frame], excerpt: str) -> list[ExtractedFact]:
    # "made the move to Lisbon": the clause of "made"; "As a Muslim I don't drink": of "drink"; a fragment
    # ("Not a fan of crowds") is its own clause
    clause = verb.head if verb.pos_ == "ADP" or verb.pos_ == "NOUN" and verb.dep_ == "dobj" else verb
    st = stance(clause)
    if st is None:
        return []
    readings = [r for frame in frames for r in frame(verb, st)]
    if not readings:
        return []
    who = subjects(clause)
    facts: list[ExtractedFact] = []
    for reading in readings:
        if not is_object(reading.object):
            continue
        if reading.subject is not None:
            facts.append(_fact(reading, Who(reading.subject, True), st, excerpt))
            continue
        relation = canonical_relation(reading.predicate)[0]
        facts += [_fact(reading, w, st, excerpt) for w in who if w.kin or relation in _NAMED_PERSON]
    return facts


def _fact(reading: Reading, who: Who, st: Stance, excerpt: str) -> ExtractedFact:
    category = reading.category
    if who.text.startswith("my ") and reading.category not in ("pets",) and reading.predicate != "named":
        category = _kin_category(who.text)
    scope = "user" if who.text == USER else "entity"
    confidence = min(st.confidence, reading.confidence or st.confidence)
    # a change, not a denial: "no longer"/"used to", or a verb that means the end ("stopped", "sold") in a
    # clause that is not itself negated
    ended = reading.negated and (st.ended or not st.negated)
    return ExtractedFact(
        who.text,
        reading.predicate,
        trim(reading.object),
        category,
        scope,
        excerpt,
        confidence,
        reading.negated,
        ended=ended,
    )


# Where a rule's object runs on into the next clause or an aside ("the piano when we downsized", "flying at
# all", "Mandarin from my years in Taipei", "quit smoking, day four"): the object ends there.
_CLAUSE_CUT = re.compile(
    r"(?:\s*[,;:(]|\s+[—–-]\s|\s+(?:when|while|because|cos|which|who|whose|whenever|unless|until|although|"
    r"though|so that|at all|from (?:my|our|his|her|their)\b)\b).*$",
    re.I,
)


def _worse_copy(obj: str, read: set[tuple[str, ...]]) -> bool:
    """A rule's object that holds a parsed object and more ("pretty bad sesame allergy" beside "sesame"):
    the same words read worse."""
    words = tuple(normalize(obj).split())
    return any(0 < len(r) < len(words) and _holds(words, r) for r in read)


def _holds(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    return any(words[i : i + len(part)] == part for i in range(len(words) - len(part) + 1))


def _clause_cut(obj: str) -> str:
    cut = _CLAUSE_CUT.sub("", obj).strip()
    return cut if is_object(cut) else obj


def _kin_category(subject: str) -> str:
    role = subject.split()[-1]
    return (
        "pets"
        if role in R.PET_WORDS or role in R.ANIMAL_KINDS
        else "work"
        if role in R.WORK_ROLES
        else "family"
    )


# "the cat is Mochi not Miso", "Lisbon, not Porto": a name or number put in place of another, comma or not.
_SWAP = re.compile(
    r"^(?P<head>.*?(?:\b[A-Z][\w'-]*|\d+|\bnow|\binstead))\s*,?\s+not\s+"
    r"(?P<old>(?:[A-Z][\w'-]*)(?:\s+[A-Z][\w'-]*)*|\d+)\b(?![\w'-])"
)


_NOT_VALUES = frozenset("i i'm i've it it's he she he's she's we they you that this that's".split())


def _correction(text: str) -> tuple[str, str] | None:
    """ "Rex, not Max" / "Denver now, not Boston" / "the cat is Mochi not Miso": (the sentence without the
    value replaced, that value). What follows it is kept ("Leeds, not Sheffield - I live in Leeds")."""
    text = text.strip(" .!")
    match = _SWAP.match(text) or R.CORRECTION.match(text)
    if match is None:
        return None
    old = R.ARTICLE.sub("", trim(match.group("old")))
    head = match.group("head")
    if head.split()[-1].lower() in _NOT_VALUES:
        return None  # "I'm not Sam", "it's not Rex": a denial, not a swap
    return (head + text[match.end() :], old) if is_object(old) else None


# "sorry, I meant Tucson": a correction that names the new value alone, at the end of the sentence
_MEANT = re.compile(
    r"(?:\bI\s+|^|,\s*)(?:meant|mean)(?: to (?:say|write|type))?\s+(?P<new>.+?)[\s.!]*$", re.I
)
_KINDS = {"GPE": "place", "LOC": "place", "FAC": "place", "ORG": "organization", "PERSON": "person"}


def value_swap(doc: Doc, replaced: tuple[str, str] | None, excerpt: str) -> list[ExtractedFact]:
    """A correction whose sentence states no fact of its own: "sorry I meant Tucson, not Phoenix", "I meant
    KPMG". The new value as a fact of unknown subject and relation (`REPLACES_VALUE`): the fact service puts
    it in place of the value named (Phoenix), or of the newest value of the same kind (a place)."""
    said = doc.text.strip(" .!")
    meant = _MEANT.search(said) or (_NEW_VALUE.search(said) if replaced is not None else None)
    value = meant.group("new") if meant else None
    if not value or not is_object(value) or len(value.split()) > 4:
        return []
    start = said.rfind(value)
    ents = [e.label_ for e in doc.ents if e.start_char <= start < e.end_char]
    kind = "number" if value.isdigit() else _KINDS.get(ents[0], "") if ents else ""
    old = replaced[1] if replaced else None
    if old is None and not kind and not value[:1].isupper():
        return []  # nothing says which value it replaces
    return [ExtractedFact("", REPLACES_VALUE, value, kind, "user", excerpt, DIRECT, replaces=old)]


# The value a correction's head ends with: "I meant Tucson" -> Tucson, "it was 13" -> 13.
_NEW_VALUE = re.compile(r"(?P<new>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*|\d+)$")


def _replacing(fact: ExtractedFact, head: str, old: str) -> ExtractedFact:
    if (
        fact.negated
        or normalize(fact.object) == normalize(old)
        or normalize(fact.object) not in normalize(head)
    ):
        return fact
    return replace(fact, replaces=old)
