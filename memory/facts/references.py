"""Whom a pronoun means when the message did not name anyone: the pet or person named most recently.

"our new puppy is called Bella" ... "we ended up calling her Pepper": the second message says "her" and no
role, so the extractor leaves the pronoun as the subject and the fact service asks here. The candidates
are the current `named` facts of a role ("my puppy" named Bella); one whose name the message mentions
("... Bella just didn't suit her") wins, otherwise the newest. A `named` fact takes the role as its subject
(the puppy is renamed); any other relation takes the name ("she moved to Leeds" -> Ana lives in Leeds).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.relations import normalize
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
