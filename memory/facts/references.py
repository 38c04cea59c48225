"""Whom a pronoun means when the message did not name anyone, and which fact a bare correction corrects.

"our new puppy is called Bella" ... "we ended up calling her Pepper": the second message says "her" and no
role, so the extractor leaves the pronoun as the subject and the fact service asks here. The candidates
are the current `named` facts of a role ("my puppy" named Bella); one whose name the message mentions
("... Bella just didn't suit her") wins, otherwise the newest. A `named` fact takes the role as its subject
(the puppy is renamed); any other relation takes the name ("she moved to Leeds" -> Ana lives in Leeds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.relations import FUNCTIONAL_RELATIONS, RELATION_TYPES, REPLACES_VALUE, normalize
from memory.facts.matching import same_object
from memory.facts.model import PRONOUNS, Candidate, StoredFact


def is_pronoun(candidate: Candidate) -> bool:
    """Whether the candidate's subject is a pronoun the message left unresolved."""
    return candidate.subject_key in PRONOUNS


def resolve(candidate: Candidate, known: Sequence[StoredFact], message: str) -> Candidate | None:
    """The candidate about whom its pronoun means, or None when no one was named before. `known` are the
    current facts (oldest first), `message` the user's text."""
    named = [f for f in known if f.relation == "named" and f.subject.lower().startswith("my ")]
    if not named:
        return None
    said = f" {normalize(message)} "
    mentioned = [f for f in named if f" {normalize(f.object)} " in said]
    referent = (mentioned or named)[-1]
    subject = referent.subject if candidate.relation == "named" else referent.object
    return replace(candidate, subject=subject, scope="entity")


def is_value_swap(candidate: Candidate) -> bool:
    """Whether the candidate is a correction naming values only ("sorry, I meant Tucson")."""
    return candidate.relation == REPLACES_VALUE


def corrected(candidate: Candidate, known: Sequence[StoredFact]) -> Candidate | None:
    """The fact a bare correction puts right: the newest current fact holding the value it names as
    replaced ("Tucson, not Phoenix"), else the newest whose relation takes a value of its kind (a place for
    "I meant Tucson"; of a name of no known kind, the newest single-valued name); None when nothing known
    fits. Its `category` carries that kind until resolved."""
    if candidate.replaces:
        fits = [f for f in known if same_object(f.object, candidate.replaces)]
    elif candidate.category:
        fits = [f for f in known if _kind(f.relation) == candidate.category]
    else:  # a name of no known kind replaces the newest name held as a single value
        fits = [f for f in known if f.relation in FUNCTIONAL_RELATIONS and f.object[:1].isupper()]
    fits = [f for f in fits if not same_object(f.object, candidate.object)]
    if not fits:
        return None
    old = fits[-1]
    return replace(
        candidate,
        subject=old.subject,
        relation=old.relation,
        category=old.category,
        scope=old.scope,
        replaces=old.object,
    )


def _kind(relation: str) -> str | None:
    if relation == "age":
        return "number"
    if relation == "named":
        return "person"
    return RELATION_TYPES.get(relation, (None, None))[1]
