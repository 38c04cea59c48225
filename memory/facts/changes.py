"""A change told about something never stated before is kept as a fact about the change.

"I've stopped climbing since my knee injury" when no climbing was known: the verifier finds nothing to end,
yet the message says something true and durable, and "do I still climb?" should get it right. The change is
stored as its own fact, its relation marked as ended ("no_longer_likes climbing": "The user no longer likes
climbing."). A plain denial ("I don't live in Paris") is not a change and stays unstored, and so is an
ending that names no relation ("cancelled Netflix": `ENDS_WHAT_IT_NAMES`), which ends what it names or
nothing. When the thing comes back ("I play the cello again"), the fact about its end is superseded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from core.relations import ENDS_WHAT_IT_NAMES, NO_LONGER
from memory.facts.matching import names_same_thing
from memory.facts.model import Candidate, StoredFact, subject_key
from memory.facts.verification import Decision, Verdict


def as_change(candidate: Candidate, decision: Decision) -> tuple[Candidate, Decision]:
    """A change that ended nothing known, as the fact of its end to store; anything else unchanged."""
    if (
        decision.verdict is not Verdict.SKIP
        or not (candidate.negated and candidate.ended)
        or candidate.relation == ENDS_WHAT_IT_NAMES
        or candidate.relation.startswith(NO_LONGER)
    ):
        return candidate, decision
    change = replace(candidate, relation=NO_LONGER + candidate.relation, negated=False, ended=False)
    return change, Decision(Verdict.STORE, "a change to something not known before")


def back_again(candidate: Candidate, decision: Decision, known: Sequence[StoredFact]) -> Decision:
    """`decision` also ending the facts that said this had stopped ("no longer likes cello" when the user
    says they play it again)."""
    if candidate.negated or decision.verdict not in (Verdict.STORE, Verdict.STORE_AND_FLAG):
        return decision
    ended = tuple(
        f.id
        for f in known
        if f.relation.startswith(NO_LONGER)
        and subject_key(f.subject) == candidate.subject_key
        and names_same_thing(candidate.object, f.relation.removeprefix(NO_LONGER), f.object)
        and f.id not in decision.supersedes
    )
    if not ended:
        return decision
    return replace(decision, verdict=Verdict.STORE_AND_FLAG, supersedes=(*decision.supersedes, *ended))
