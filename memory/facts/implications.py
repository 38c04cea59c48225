"""What a new fact retires besides the old value of its own relation.

The verifier compares a candidate with the current facts of the same subject and relation. Some statements
also end facts filed elsewhere:

- A partner role moves forward: "Lena and I got married" ends "my girlfriend is Lena" (a later role of the
  same person: girlfriend/boyfriend/partner -> fiance -> spouse/wife/husband); "Carlos and I are divorced"
  (married to Carlos, negated) ends every partner role of Carlos and the marriage itself.
- A trade ends with its workplace: when "I'm a teacher at Hillcrest Primary" stops being true ("I left
  teaching"), the employer stated in the same sentence ends too.
- A change names the thing, not the verb it was told with: "I no longer play the cello" (a liking that
  ended) ends "plays cello", "I sold the Corolla" ends "drives red Toyota Corolla", "I've stopped climbing"
  ends "goes rock climbing every weekend". Any current fact of the same subject whose object or relation
  names the same thing (`matching.names_same_thing`) ends with it. An ending whose verb names no relation
  ("we had to put Biscuit down", "cancelled Netflix") also ends the facts of what it names (Biscuit's age,
  "my dog is named Biscuit").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from core.relations import ALL_WORK, ENDS_WHAT_IT_NAMES
from memory.facts.matching import names_same_thing, same_object
from memory.facts.model import Candidate, StoredFact, subject_key
from memory.facts.verification import Decision, Verdict

# A partner role's stage: a later stage of the same person supersedes an earlier one.
_STAGE = {
    "my girlfriend": 0,
    "my boyfriend": 0,
    "my partner": 0,
    "my fiance": 1,
    "my fiancee": 1,
    "my spouse": 2,
    "my wife": 2,
    "my husband": 2,
}
_MARRIED = "spouse_of"
_HAVING = frozenset({"owns", "has_pet"})
_ENDS_WITH_TRADE = "works_at"
Current = Callable[[str, str], list[StoredFact]]  # (subject key, relation) -> current facts


def widen(
    candidate: Candidate, decision: Decision, known: Sequence[StoredFact], current: Current
) -> Decision:
    """`decision` with the facts the candidate also ends added to what it supersedes. `known` are all
    current facts, `current` looks up those of one subject and relation."""
    related = _partner_roles(candidate, known) + _workplaces(decision, known, current)
    same_thing = _same_thing_elsewhere(candidate, known)
    extra = tuple(i for i in dict.fromkeys(related + same_thing) if i not in decision.supersedes)
    if not extra or decision.verdict in (Verdict.REJECT,):
        return decision
    if candidate.negated:
        verdict = Verdict.RETRACT
    elif decision.verdict in (Verdict.STORE, Verdict.STORE_AND_FLAG):
        verdict = Verdict.STORE_AND_FLAG
    else:
        return decision
    if decision.supersedes:
        reason = decision.reason
    elif set(extra) <= set(same_thing):
        reason = "the user said this no longer holds"
    else:
        reason = "a later stage of the same relationship"
    return replace(decision, verdict=verdict, reason=reason, supersedes=(*decision.supersedes, *extra))


def _same_thing_elsewhere(candidate: Candidate, known: Sequence[StoredFact]) -> tuple[str, ...]:
    """The current facts of the candidate's subject, under any relation (its own included: "I sold the
    Corolla" ends "owns a red Toyota Corolla"), that a negated candidate ends because they name the same
    thing."""
    if not candidate.negated:
        return ()
    mine = [f for f in known if subject_key(f.subject) == candidate.subject_key]
    if candidate.relation == ENDS_WHAT_IT_NAMES and same_object(candidate.object, ALL_WORK):
        # "Retired at last!": the workplaces, and the trades told with them or filed as work
        told_with = {f.turn_id for f in mine if f.relation == _ENDS_WITH_TRADE}
        return tuple(
            f.id
            for f in mine
            if f.category == "work"
            or f.relation == _ENDS_WITH_TRADE
            or f.relation == "is_a"
            and f.turn_id in told_with
        )
    # an animal or person the user named is gone ("we had to put Biscuit down", "we lost Rocky in March"):
    # the name and their own facts end too; a relationship that ended ("Carlos and I are divorced") is not
    named = any(f.relation == "named" and same_object(f.object, candidate.object) for f in known)
    lost = candidate.ended and candidate.relation in _HAVING and named
    gone = candidate.relation == ENDS_WHAT_IT_NAMES or lost
    return tuple(
        f.id
        for f in known
        if f in mine
        and names_same_thing(candidate.object, f.relation, f.object)
        or gone
        and (
            same_object(f.subject, candidate.object)
            or f.relation == "named"
            and same_object(f.object, candidate.object)
        )
    )


def _partner_roles(candidate: Candidate, known: Sequence[StoredFact]) -> tuple[str, ...]:
    """Partner-role names of the same person that this candidate moves past (or ends)."""
    if candidate.relation == _MARRIED and candidate.subject_key == "user":
        stage = _STAGE["my spouse"]
    elif candidate.relation == "named" and candidate.subject_key in _STAGE and not candidate.negated:
        stage = _STAGE[candidate.subject_key]
    else:
        return ()
    partners = [
        f
        for f in known
        if f.relation == "named" and f.subject.lower() in _STAGE and same_object(f.object, candidate.object)
    ]
    if candidate.negated:  # the relationship ended: every role of that person
        return tuple(f.id for f in partners)
    return tuple(f.id for f in partners if _STAGE[f.subject.lower()] < stage)


def _workplaces(decision: Decision, known: Sequence[StoredFact], current: Current) -> tuple[str, ...]:
    """The employers stated together with a trade this decision ends."""
    ended = [f for f in known if f.id in decision.supersedes and f.relation == "is_a"]
    return tuple(
        w.id
        for trade in ended
        for w in current(subject_key(trade.subject), _ENDS_WITH_TRADE)
        if w.turn_id == trade.turn_id and w.excerpt == trade.excerpt
    )
