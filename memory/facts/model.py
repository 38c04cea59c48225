"""The fact store's values: a canonical candidate about to be verified, and a stored fact with its history.

A candidate is an `ExtractedFact` in canonical form: the relation named as `core.relations` names it, the
subject and object swapped when the phrasing was inverted ("has a sister Jo" -> Jo sister_of user), the
speaker's words ("I", "me") as `user`. Its id depends only on (subject, relation, object), so the same fact
said twice is one fact, confirmed, never two.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from core.ports import ExtractedFact
from core.relations import canonical_relation, fact_sentence, normalize

USER = "user"
_USER_WORDS = frozenset({"i", "me", "my", "myself", "mine", "user", "the user"})
# A subject the sentence did not name ("we ended up calling her Pepper"): the fact service resolves it to
# whom the conversation named before, or drops the fact.
PRONOUNS = frozenset({"he", "she", "him", "her", "it", "they", "them"})
CURRENT = "current"
SUPERSEDED = "superseded"


def subject_key(text: str) -> str:
    """The normalised subject: the user's own words become `user`; "My Sister" -> "my sister"."""
    key = normalize(text)
    return USER if key in _USER_WORDS else key


def fact_id(subject: str, relation: str, obj: str) -> str:
    """Content-derived id: the same (subject, relation, object) always has the same id."""
    raw = f"{subject_key(subject)}|{relation}|{normalize(obj)}"
    return "fact_" + hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Candidate:
    """A fact in canonical form, with where it came from."""

    subject: str
    relation: str
    object: str
    category: str
    scope: str
    excerpt: str
    confidence: float
    source: str = "user_stated"
    negated: bool = False
    replaces: str | None = None
    ended: bool = False

    @property
    def id(self) -> str:
        return fact_id(self.subject, self.relation, self.object)

    @property
    def subject_key(self) -> str:
        return subject_key(self.subject)

    @property
    def object_key(self) -> str:
        return normalize(self.object)

    @classmethod
    def from_extracted(cls, fact: ExtractedFact, *, source: str = "user_stated") -> Candidate:
        relation, inverted = canonical_relation(fact.predicate)
        subject, obj = (fact.object, fact.subject) if inverted else (fact.subject, fact.object)
        if subject_key(subject) == USER:
            subject = USER
        return cls(
            subject=subject.strip(),
            relation=relation,
            object=obj.strip(),
            category=fact.category,
            scope=fact.scope,
            excerpt=fact.excerpt[:200],
            confidence=fact.confidence,
            source=source,
            negated=fact.negated,
            replaces=fact.replaces,
            ended=fact.ended,
        )


@dataclass(frozen=True)
class StoredFact:
    """A fact as kept: `status` is current or superseded; superseded facts are history, never deleted."""

    id: str
    subject: str
    relation: str
    object: str
    category: str
    scope: str
    status: str
    truth: float
    source: str
    confidence: float
    excerpt: str
    turn_id: str
    created_at: float
    last_confirmed_at: float
    confirmations: int = 0
    superseded_by: str | None = None
    superseded_at: float | None = None
    reason: str = ""

    @property
    def is_current(self) -> bool:
        return self.status == CURRENT

    @property
    def text(self) -> str:
        """The sentence stored in the `facts` collection for retrieval ("Jo lives in Denver.")."""
        return fact_sentence(self.subject, self.relation, self.object)
