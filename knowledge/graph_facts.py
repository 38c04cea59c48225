"""Feeding extracted facts into the graph: (subject, predicate, object, confidence, source_id, timestamp).

The fact extractor produces simple triples; this turns them into entities and canonical edges (the original
extracted facts that never reached its graph). "user", "I", "me" are the user node. "my sister" is whoever
is registered as the user's sister; if nobody is yet, a placeholder ("the user's sister") holds the facts
until a name arrives (("my sister", "is named", "Jo") folds the placeholder into Jo). Pets get their kind as
an `is_a` edge ("Pepper is a dog."). Objects that are not entities (dates, ages, durations, long phrases)
become attributes of the subject. Triples below `min_confidence` or with junk parts are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from core.relations import RELATION_TYPES, ROLES, USER_ID, canonical_relation, make_entity_id, normalize
from knowledge.entities import OWN_RELATION_NOUNS, PET_KINDS, STOPWORDS, USER_WORDS, possessive_aliases
from knowledge.graph import Edge, KnowledgeGraph

_POSSESSIVE = re.compile(r"^(?:my|our|the user|user|users)\s+(.+)$")
_ARTICLE = re.compile(r"^(?:a|an|the)\s", re.I)
_NOT_ENTITY = re.compile(
    r"^\d|\b(?:jan(?:uary)?|feb(?:ruary)?|march|april|june|july|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|"
    r"nov(?:ember)?|dec(?:ember)?)\s+\d|\b\d+\s*(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b|"
    r"^(?:every|each|per|sometimes|often|always|never|usually)\b",
    re.I,
)
ATTRIBUTE_RELATIONS = frozenset(
    {"age", "birthday", "birth_date", "born_on", "height", "weight", "phone", "email", "address"}
)
_PET_PREDICATE = re.compile(r"^(?:has|owns|got|adopted)(?: a| an)? (\w+(?: pig)?)(?: named| called)?$")
_NAMING = frozenset({"named", "is_a"})


class Triple(NamedTuple):
    """One extracted fact. `timestamp` is epoch seconds, a datetime or ISO text; None means now."""

    subject: str
    predicate: str
    object: str
    confidence: float = 0.8
    source_id: str | None = None
    timestamp: float | datetime | str | None = None


@dataclass
class IngestReport:
    """What one `ingest_triples` call did."""

    edges: int = 0
    attributes: int = 0
    superseded: int = 0
    skipped: int = 0
    entities_created: int = 0


def ingest_triples(
    graph: KnowledgeGraph, triples: Iterable[Sequence[object]], *, min_confidence: float = 0.5
) -> IngestReport:
    """Add each triple to the graph (see module doc); return counts. Bad rows are skipped, never raised."""
    report = IngestReport()
    before = len(graph)
    for row in triples:
        triple = _coerce(row)
        if triple is None or triple.confidence < min_confidence or not _usable(triple):
            report.skipped += 1
            continue
        _ingest_one(graph, triple, report)
    report.entities_created = max(0, len(graph) - before)
    return report


def _coerce(row: Sequence[object]) -> Triple | None:
    try:
        subject, predicate, obj = (str(part).strip() for part in row[:3])
        confidence = float(row[3]) if len(row) > 3 and row[3] is not None else 0.8  # type: ignore[arg-type]
    except (TypeError, ValueError, IndexError):
        return None
    source = str(row[4]) if len(row) > 4 and row[4] is not None else None
    stamp = row[5] if len(row) > 5 else None
    return Triple(subject, predicate, obj, confidence, source, stamp)  # type: ignore[arg-type]


def _usable(t: Triple) -> bool:
    subject = normalize(t.subject)
    if not subject or not normalize(t.predicate) or not normalize(t.object):
        return False
    return subject in USER_WORDS or bool(_POSSESSIVE.match(subject)) or subject not in STOPWORDS


def role_noun(text: str) -> str | None:
    """The noun of a possessive phrase naming one of the user's roles: "my sister" -> "sister"."""
    match = _POSSESSIVE.match(normalize(text))
    if not match:
        return None
    noun = match.group(1)
    known = any(noun in nouns for nouns in ROLES.values()) or noun in PET_KINDS or noun == "pet"
    return noun if known or any(noun in nouns for nouns in OWN_RELATION_NOUNS.values()) else None


def _ingest_one(graph: KnowledgeGraph, t: Triple, report: IngestReport) -> None:
    relation, inverted = canonical_relation(t.predicate)
    subject, obj = (t.object, t.subject) if inverted else (t.subject, t.object)  # canonical direction
    pet = _PET_PREDICATE.match(normalize(t.predicate))
    if pet and (pet.group(1) in PET_KINDS or pet.group(1) == "pet"):
        _add_pet(graph, subject, pet.group(1), obj, t)
        report.edges += 1
        return
    named = _naming(graph, relation, subject, obj)
    if named is not None:
        _name_role(graph, named[0], named[1], t)
        report.edges += 1
        return
    subject_type, object_type = RELATION_TYPES.get(relation, (None, None))
    source = resolve_term(graph, subject, t, subject_type)
    if relation in ATTRIBUTE_RELATIONS or not graph_worthy(obj):
        graph.set_attribute(source, relation, obj.strip(), at=t.timestamp)
        report.attributes += 1
        return
    if relation == "is_a" and normalize(_strip_article(obj)) in PET_KINDS:
        graph.set_type(source, "pet")
    target = resolve_term(graph, _strip_article(obj) if relation == "is_a" else obj, t, object_type)
    before = {e.key for e in graph.edges(source, relation)}
    edge = graph.add_relation(
        source, relation, target, truth=t.confidence, fact_id=t.source_id, at=t.timestamp
    )
    after = {e.key for e in graph.edges(source, relation)}
    report.superseded += len(before - after - {edge.key})
    report.edges += 1


def _naming(graph: KnowledgeGraph, relation: str, subject: str, obj: str) -> tuple[str, str] | None:
    """(role noun, name) when a triple says who holds one of the user's roles, else None.

    ("my sister", "is named", "Jo"), ("Jo", "is", "my sister") and ("Jo", "sister of", "user") all do;
    ("my sister", "is", "a nurse") does not (it describes her).
    """
    if relation in ROLES and normalize(obj) in USER_WORDS:
        return ROLES[relation][0], subject
    if relation not in _NAMING:
        return None
    subject_role, object_role = role_noun(subject), role_noun(obj)
    if subject_role and (relation == "named" or _looks_like_name(graph, obj)):
        return subject_role, obj
    if object_role:
        return object_role, subject
    return None


def _add_pet(graph: KnowledgeGraph, owner: str, kind: str, name: str, t: Triple) -> None:
    """("user", "has a dog named", "Pepper") or the same for someone else's pet."""
    if normalize(owner) in USER_WORDS:
        _name_role(graph, kind, name, t)
        return
    owner_id = resolve_term(graph, owner, t, "person")
    pet = graph.add_entity(_strip_article(name), "pet", entity_id=graph.find(name), at=t.timestamp)
    graph.set_type(pet, "pet")
    species = graph.add_entity(kind, "concept", at=t.timestamp)
    _assert(graph, owner_id, "has_pet", pet, t)
    _assert(graph, pet, "is_a", species, t)


def graph_worthy(text: str) -> bool:
    """Whether a value deserves its own node: a short name, not a date, duration, number or long phrase."""
    phrase = normalize(text)
    if not (2 <= len(phrase) <= 60) or phrase.count(" ") >= 4:
        return False
    if phrase in STOPWORDS or _NOT_ENTITY.search(phrase):
        return False
    return not phrase.startswith(("to ", "being ", "going "))


def _looks_like_name(graph: KnowledgeGraph, text: str) -> bool:
    """ "Jo" or a known person/pet is a name; "a nurse" is a description."""
    if _ARTICLE.match(text.strip()):
        return False
    known = graph.find(text)
    entity = graph.entity(known) if known else None
    if entity is not None:
        return entity.type in ("person", "pet")
    return text.strip()[:1].isupper()


def _strip_article(text: str) -> str:
    return _ARTICLE.sub("", text.strip()).strip()


def resolve_term(graph: KnowledgeGraph, text: str, t: Triple, type_hint: str | None = None) -> str:
    """The entity a triple's subject/object names, created if new: user words, "my X" roles, names."""
    phrase = normalize(text)
    if phrase in USER_WORDS:
        return graph.ensure_user()
    noun = role_noun(text)
    if noun is not None:
        holders = [graph.entity(eid) for eid in possessive_aliases(graph).get(f"my {noun}", [])]
        known = [entity for entity in holders if entity is not None]
        if known:
            best = max(known, key=lambda entity: entity.mentions)
            return graph.add_entity(best.name, entity_id=best.id, at=t.timestamp)
        return _placeholder(graph, noun, t)
    found = graph.find(text)
    return graph.add_entity(text.strip(), type_hint or "thing", entity_id=found, at=t.timestamp)


def _placeholder(graph: KnowledgeGraph, noun: str, t: Triple) -> str:
    """A stand-in for "my sister" until her name is known, linked to the user by the role."""
    kind = _role_kind(noun)
    noun = _canonical_noun(noun, kind)
    eid = make_entity_id(f"user's {noun}")
    etype = "pet" if kind[0] == "pet" else RELATION_TYPES.get(kind[1], (None, None))[1] or "person"
    if eid not in graph:
        graph.add_entity(f"the user's {noun}", etype, entity_id=eid, at=t.timestamp)
        graph.set_attribute(eid, "placeholder", True)
    _link_role(graph, kind, noun, eid, t)
    return eid


def _role_kind(noun: str) -> tuple[str, str]:
    """("role", relation) for people, ("pet", "has_pet") for animals, ("own", relation) for "my job"."""
    for relation, nouns in ROLES.items():
        if noun in nouns:
            return "role", relation
    if noun in PET_KINDS or noun == "pet":
        return "pet", "has_pet"
    for relation, nouns in OWN_RELATION_NOUNS.items():
        if noun in nouns:
            return "own", relation
    return "own", "related_to"


def _assert(graph: KnowledgeGraph, source: str, relation: str, target: str, t: Triple) -> Edge:
    return graph.add_relation(
        source, relation, target, truth=t.confidence, fact_id=t.source_id, at=t.timestamp
    )


def _link_role(graph: KnowledgeGraph, kind: tuple[str, str], noun: str, eid: str, t: Triple) -> None:
    """The edge that gives `eid` the role: Jo -sister_of-> user, user -has_pet-> Pepper (+ is_a dog)."""
    user = graph.ensure_user()
    if kind[0] == "role":
        _assert(graph, eid, kind[1], user, t)
        return
    _assert(graph, user, kind[1], eid, t)
    if kind[0] == "pet" and noun != "pet":
        _assert(graph, eid, "is_a", graph.add_entity(noun, "concept", at=t.timestamp), t)


def _canonical_noun(noun: str, kind: tuple[str, str]) -> str:
    """One placeholder per role: "mom" and "mother" are the same person."""
    return ROLES[kind[1]][0] if kind[0] == "role" else noun


def _name_role(graph: KnowledgeGraph, noun: str, name: str, t: Triple) -> str | None:
    """("my sister", "is named", "Jo"): Jo takes the role; a placeholder for it is folded into Jo."""
    kind = _role_kind(noun)
    noun = _canonical_noun(noun, kind)
    etype = "pet" if kind[0] == "pet" else RELATION_TYPES.get(kind[1], (None, None))[1] or "person"
    clean = _strip_article(name) if kind[0] != "role" else name.strip()
    if normalize(clean) in USER_WORDS or make_entity_id(clean) == USER_ID:
        return None  # "my sister is me": nothing sensible to record
    named = graph.add_entity(clean, etype, entity_id=graph.find(clean), at=t.timestamp)
    if kind[0] == "pet":
        graph.set_type(named, "pet")
    holder = make_entity_id(f"user's {noun}")
    entity = graph.entity(holder)
    if entity is not None and entity.attributes.get("placeholder") and holder != named:
        graph.merge(named, holder)
    _link_role(graph, kind, noun, named, t)
    return named
