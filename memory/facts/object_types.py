"""Does a fact's object fit its relation? A company is no one's name, a studio has no job title.

The verification gate asks `ObjectTypes.mismatch` before it stores a fact. Each relation names the kinds of
value it takes (`ACCEPTS`, shown in docs/memory.md): `named` a person's or pet's name, `lives_in`/`born_in` a
place, `works_at`/`studies_at` an organisation, `is_a` a role or kind, `age` a number from 0 to 120. The
kind of a value comes from the strongest evidence there is, in this order:

1. the sentence: the noun spaCy's parse names the value by ("a studio called Bluefin Audio", "Bluefin
   Audio, a small studio"), or the same wording read without a parse;
2. the value's own words: "Acme Inc", "Bluefin Studios", "University of Leeds", "Elm Street";
3. the knowledge graph: what the entity is already known to be (`core.ports.EntityTypes`).

spaCy's entity labels are not evidence on their own: the small model labels pet and person names ORG
("Kat", "Bruno", "Nibbles", "Leah", "Toby") and "Winnipeg" DATE; over the six labelled sets a label alone
rejected 12 right facts and no wrong one.

No evidence, or evidence of a kind the relation accepts, lets the fact through: a fact of unknown kind is
kept (losing what the user said is worse than keeping an odd value). A known clash is a REJECT with a reason
("'Bluefin Audio' is an organisation (the sentence calls it a studio), not a person's name").
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from core.relations import normalize
from memory.facts import extraction_rules as R
from memory.facts.model import USER, Candidate, StoredFact

if TYPE_CHECKING:
    from core.nlp import SpacyPipeline
    from core.ports import EntityTypes

PERSON, ORG, PLACE, PET, THING = "person", "organisation", "place", "pet", "thing"

# Nouns a sentence names a value by ("a studio called X", "a town named Y").
_ORG_NOUNS = frozenset(
    """studio studios company firm business startup start-up agency bank shop store restaurant cafe café bar
    pub bakery brewery label school college university uni academy hospital clinic charity nonprofit
    non-profit organisation organization org corporation lab laboratory publisher newspaper hotel factory
    warehouse consultancy outfit boutique gallery museum theatre theater venue network foundation institute
    department ministry council team club gym band orchestra choir firm chain brand retailer supermarket
    practice salon garage workshop nursery kindergarten""".split()
)
_PLACE_NOUNS = frozenset(
    """town city village country state province county island street road avenue neighbourhood neighborhood
    suburb district region hamlet borough lake river mountain valley""".split()
)
_THING_NOUNS = frozenset(
    """podcast app website site blog book novel song album film movie show series game boat car bike
    newsletter channel account""".split()
)
_PERSON_NOUNS = R.ROLE_WORDS | frozenset(
    "guy girl boy man woman person lady gentleman kid baby son daughter friend".split()
)
_PET_NOUNS = R.PET_WORDS | R.ANIMAL_KINDS
# Words inside a value that make it an organisation or a place whatever the sentence says.
_ORG_WORDS = frozenset(
    """inc inc. ltd ltd. llc plc corp corp. co. gmbh studio studios company records labs group holdings
    agency bank university college school academy hospital clinic foundation institute council ministry
    restaurant cafe café bakery brewery""".split()
)
_PLACE_WORDS = frozenset("street st. road avenue ave boulevard lane county province".split())
_GRAPH: Mapping[str, str] = MappingProxyType(
    {"person": PERSON, "pet": PET, "place": PLACE, "organization": ORG, "project": THING, "event": THING}
)
_WHAT = {PERSON: "a person", ORG: "an organisation", PLACE: "a place", PET: "a pet", THING: "a thing"}


@dataclass(frozen=True)
class Accepts:
    """What a relation's object may be: `never` the kinds it rejects; `takes` says it in the reason."""

    takes: str
    never: frozenset[str]


_PLACE_ONLY = Accepts("a place", frozenset({PERSON, PET, ORG, THING}))
ACCEPTS: Mapping[str, Accepts] = MappingProxyType(
    {
        # the user's or a person's name: a person, or an unknown proper noun (a pet for "my dog")
        "named": Accepts("a person's name", frozenset({ORG, PLACE, THING})),
        "lives_in": _PLACE_ONLY,
        "born_in": _PLACE_ONLY,
        # an organisation or an unknown proper noun; a relative of the user's is checked apart
        "works_at": Accepts("an organisation", frozenset({PLACE, PET})),
        "studies_at": Accepts("a school", frozenset({PLACE, PET})),
        # a role or a kind ("sound engineer", "golden retriever"), never a named organisation or place
        "is_a": Accepts("a role or kind", frozenset({ORG, PLACE})),
    }
)
# Relations only a person (or the user) has: a subject known to be an organisation or a place is a misreading.
_ABOUT_A_PERSON = frozenset({"works_at", "studies_at", "born_in", "age"})
_SUBJECT_NEVER = frozenset({ORG, PLACE, THING})
_NOUN_KINDS: tuple[tuple[frozenset[str], str], ...] = (
    (_ORG_NOUNS, ORG),
    (_PLACE_NOUNS, PLACE),
    (_THING_NOUNS, THING),
    (_PET_NOUNS, PET),
)
_NOUN_KINDS += ((_PERSON_NOUNS, PERSON),)
_NAMING = re.compile(r"\b(?:called|named)\b|,", re.I)


@dataclass(frozen=True)
class Kind:
    """A value's kind and the evidence for it (quoted in the reason)."""

    kind: str
    evidence: str


class ObjectTypes:
    """Types a fact's object (and subject) from its sentence's parse, its words and the knowledge graph.

    `nlp` (the process's shared spaCy pipeline) and `graph` are optional: without them the sentence's wording
    and the value's words still count. Parses are cached per sentence (a turn's facts share one)."""

    def __init__(self, nlp: SpacyPipeline | None = None, graph: EntityTypes | None = None) -> None:
        self._nlp = nlp
        self._graph = graph
        self._parsed: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()  # the fact service asks from worker threads

    def mismatch(self, candidate: Candidate, known: Sequence[StoredFact] = ()) -> str | None:
        """Why the fact's object (or subject) cannot be what its relation needs; None when it fits or its
        kind is unknown. `known` are current facts (the user's relatives by name)."""
        relation, obj = candidate.relation, candidate.object
        if relation == "age" and (reason := _age_mismatch(obj)):
            return reason
        if relation == "works_at" and (kin := _relative(obj, known)):
            return f"'{obj}' is your {kin}, a person, not a workplace"
        if candidate.subject != USER and (
            relation in _ABOUT_A_PERSON or (relation == "is_a" and candidate.category == "work")
        ):
            subject = self.kind_of(candidate.subject, candidate.excerpt)
            if subject is not None and subject.kind in _SUBJECT_NEVER:
                return (
                    f"'{candidate.subject}' is {_WHAT[subject.kind]} ({subject.evidence}), "
                    f"not a person, and {relation} here is said of people"
                )
        accepts = ACCEPTS.get(relation)
        if accepts is None or not _person_subject(candidate):
            return None
        kind = self.kind_of(obj, candidate.excerpt)
        never = accepts.never | ({PET} if relation == "named" and candidate.subject == USER else set())
        if kind is not None and kind.kind in never:  # "a dog called Rex": Rex is not the user
            return f"'{obj}' is {_WHAT[kind.kind]} ({kind.evidence}), not {accepts.takes}"
        return None

    def kind_of(self, value: str, sentence: str = "") -> Kind | None:
        """The value's kind from the strongest evidence there is (see the module docstring), or None."""
        return self._named_by(value, sentence) or _by_words(value) or self._by_graph(value)

    def _named_by(self, value: str, sentence: str) -> Kind | None:
        """The noun the sentence names the value by: the parse's ("a studio called X", "X, a studio"), else
        the wording's ("studio called X")."""
        if not sentence or not value:
            return None
        # only "called"/"named" or a comma (an apposition) can name the value: else no parse is needed
        naming = self._nlp is not None and _NAMING.search(sentence) is not None
        noun = self._parsed_noun(value, sentence) if naming else None
        if noun is None:
            match = re.search(
                rf"\b([A-Za-z][\w-]*)\s*,?\s+(?:called|named)\s+[\"']?{re.escape(value)}(?![\w'-])",
                sentence,
                re.I,
            )
            noun = match.group(1).lower() if match else None
        for nouns, kind in _NOUN_KINDS if noun else ():
            if noun in nouns:
                return Kind(kind, f"the sentence calls it a {noun}")
        return None

    def _parsed_noun(self, value: str, sentence: str) -> str | None:
        doc = self._parse(sentence)
        words = normalize(value).split()
        for start in range(len(doc) - len(words) + 1):
            span = doc[start : start + len(words)]
            if [normalize(t.text) for t in span] != words:
                continue
            root = span.root
            head = root.head
            if head.lemma_ in ("call", "name") and head.dep_ == "acl" and head.head.pos_ == "NOUN":
                return head.head.lemma_.lower()  # "a studio called Bluefin Audio"
            if root.dep_ == "appos" and head.pos_ == "NOUN":
                return head.lemma_.lower()  # "my studio, Bluefin Audio"
            appos = next((c for c in root.children if c.dep_ == "appos" and c.pos_ == "NOUN"), None)
            return appos.lemma_.lower() if appos is not None else None  # "Bluefin Audio, a small studio"
        return None

    def _by_graph(self, value: str) -> Kind | None:
        if self._graph is None:
            return None
        try:
            known = self._graph.entity_type(value)
        except Exception:  # noqa: BLE001 - no graph answer is no evidence, never a failed turn
            return None
        kind = _GRAPH.get(known or "")
        return Kind(kind, f"the knowledge graph knows it as {_WHAT[kind].split()[-1]}") if kind else None

    def _parse(self, text: str) -> Any:
        with self._lock:
            if text in self._parsed:
                self._parsed.move_to_end(text)
                return self._parsed[text]
        doc = self._nlp(text, disable=("ner",)) if self._nlp is not None else None
        with self._lock:
            self._parsed[text] = doc
            while len(self._parsed) > 32:  # a turn's facts share one sentence; a few turns are plenty
                self._parsed.popitem(last=False)
        return doc


def _by_words(value: str) -> Kind | None:
    """ "Acme Inc", "Bluefin Studios", "Elm Street": a word of the value that says what it is."""
    words = value.lower().replace(",", " ").split()
    if len(words) < 2:  # "studio" alone may be a kind ("I rent a studio")
        return None
    # the head word, or the word before "of" ("University of Oregon"); "a college student" is a student
    heads = {words[-1]} | {w for w, nxt in zip(words, words[1:], strict=False) if nxt == "of"}
    org = next((w for w in words if w in heads and w in _ORG_WORDS), None)
    if org is not None:
        return Kind(ORG, f"'{org}' names an organisation")
    return Kind(PLACE, f"'{words[-1]}' names a place") if words[-1] in _PLACE_WORDS else None


def _person_subject(candidate: Candidate) -> bool:
    """Whether the relation's object rule applies: the user's or a person's (or pet's) own fact. "my band
    is called X" names a band, so `named` is only checked for the user and people/pets by role."""
    if candidate.relation != "named" or candidate.subject == USER:
        return True
    role = normalize(candidate.subject).removeprefix("my ").split()
    return bool(role) and (role[-1] in _PERSON_NOUNS or role[-1] in _PET_NOUNS)


def _age_mismatch(value: str) -> str | None:
    age = R.age_value(value.strip())
    if age is None:
        return f"'{value}' is not a number, and an age is one"
    return None if 0 <= age <= 120 else f"{age} is not an age (0 to 120)"


def _relative(value: str, known: Sequence[StoredFact]) -> str | None:
    """The role of the user's relative so named ("my sister" named Jo -> "sister"), or None."""
    key = normalize(value)
    for fact in known:
        if (
            fact.relation == "named"
            and fact.subject.lower().startswith("my ")
            and normalize(fact.object) == key
        ):
            role = fact.subject[3:].strip().lower()
            if role not in R.WORK_ROLES and role.split()[-1] not in _PET_NOUNS:
                return role
    return None
