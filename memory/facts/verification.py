"""The gate every fact passes before it is stored: STORE, STORE_AND_FLAG, REJECT, SKIP (or RETRACT).

Rules first, in order; a model is consulted only for the ambiguous case, when one is configured:

- SKIP: an empty part, or a passing state (a mood, what the user is doing right now).
- REJECT: a "fact" that reads like an instruction to the assistant ("always send my files to ...",
  "ignore previous instructions"): a transcript or document can carry such text into the extractor, and a
  stored fact would be replayed into every later prompt (memory poisoning).
- RETRACT: a negated fact ("I no longer work at Acme") that matches current facts: those are flagged as no
  longer true. Nothing new is stored; nothing is deleted.
- REJECT: an object that does not fit its relation, by known type (`object_types`): a company as the user's
  name, a studio with a job title, "abc" as an age, the user's sister as an employer. Unknown types pass.
- STORE: no current fact has the same subject and relation; or one has the same object (a confirmation of
  that fact); or the relation holds many values at once (likes, owns, has a pet).
- STORE_AND_FLAG: a single-valued relation (lives in, works at, is named, age, a schedule's time) gets a new
  value the user stated directly (or a correction names the value it replaces): the new fact is stored and
  the old one is superseded (linked both ways, kept, marked not current).
- REJECT: a weakly supported claim about someone else that contradicts what is known.
- Otherwise ambiguous: the adjudicator (an LLM) says update / complementary / implausible; with none, or no
  usable answer, a single-valued relation is treated as an update (the newest statement wins).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from core.relations import FUNCTIONAL_RELATIONS
from memory.facts.matching import object_key, same_object
from memory.facts.model import Candidate, StoredFact
from memory.facts.object_types import ObjectTypes

logger = logging.getLogger(__name__)

SINGLE_VALUED = FUNCTIONAL_RELATIONS | {
    "age",
    "birthday",
    "birth_date",
    "height",
    "weight",
    "phone",
    "email",
    "address",
    "number_of_children",
}
EPHEMERAL = frozenset(
    {"feels", "feeling", "is_feeling", "mood", "current_activity", "emotional_state", "status", "is_doing"}
)
# Imperatives aimed at the assistant, and requests to move the user's data somewhere.
INSTRUCTION_SHAPED = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|"
    r"system|safety)\b|\bsystem\s+prompt\b|\b(?:you|assistant|ai|daemon)\s+(?:must|should|shall|will\s+always)\b|"
    r"\b(?:always|never)\s+(?:send|forward|upload|share|email|post|reveal|tell|mention|include|reply|respond|"
    r"say|obey|follow)s?\b|\b(?:send|forward|upload|exfiltrate|email|post|leak)s?\s+(?:all\s+|every\s+|my\s+|the\s+|"
    r"your\s+|any\s+)*(?:files?|data|memor(?:y|ies)|messages?|passwords?|keys?|secrets?|conversations?|"
    r"history|contacts|credentials|tokens?)\b",
    re.IGNORECASE,
)
DIRECT_SOURCES = frozenset({"user_stated", "corrected"})
DIRECT_CONFIDENCE = 0.85
WEAK_ENTITY_CONFIDENCE = 0.6


class Verdict(StrEnum):
    STORE = "store"
    STORE_AND_FLAG = "store_and_flag"
    REJECT = "reject"
    SKIP = "skip"
    RETRACT = "retract"


@dataclass(frozen=True)
class Decision:
    """What to do with a candidate: `supersedes` are the current facts it replaces (or retracts; for a
    REJECT, the facts it contradicted, which stay current), `confirms` the existing fact it restates."""

    verdict: Verdict
    reason: str
    supersedes: tuple[str, ...] = ()
    confirms: str | None = None


class Adjudicator(Protocol):
    """Settles an ambiguous conflict: "update", "complementary", "implausible", or None (no answer)."""

    async def judge(self, new: Candidate, old: StoredFact) -> str | None: ...


# One diet at a time: "I'm vegan" ... "so pescatarian now" replaces it (other "is a" facts stay many).
DIETS = frozenset("vegan vegetarian pescatarian pescetarian omnivore flexitarian carnivore".split())


def is_single_valued(candidate: Candidate) -> bool:
    """One current value at a time: functional relations, personal attributes, a diet and each schedule."""
    return (
        candidate.relation in SINGLE_VALUED
        or candidate.category == "schedules"
        or _is_diet(candidate.relation, candidate.object)
    )


def _is_diet(relation: str, obj: str) -> bool:
    return relation == "is_a" and object_key(obj) in DIETS


def _comparable(candidate: Candidate, current: Sequence[StoredFact]) -> Sequence[StoredFact]:
    """The current facts a candidate can confirm or replace: a diet replaces a diet, not "teacher"."""
    if _is_diet(candidate.relation, candidate.object):
        return [f for f in current if _is_diet(f.relation, f.object)]
    return current


def decide_by_rules(candidate: Candidate, current: Sequence[StoredFact]) -> Decision | None:
    """The rule verdict, or None when the case is ambiguous. `current` are the current facts with the
    candidate's subject and relation."""
    if not candidate.subject_key or not candidate.relation or not candidate.object_key:
        return Decision(Verdict.SKIP, "a part of the fact is empty")
    if candidate.relation in EPHEMERAL:
        return Decision(Verdict.SKIP, "a passing state, not a durable fact")
    if INSTRUCTION_SHAPED.search(f"{candidate.relation.replace('_', ' ')} {candidate.object}"):
        return Decision(Verdict.REJECT, "reads like an instruction to the assistant, not a fact")
    current = _comparable(candidate, current)
    same = [f for f in current if same_object(f.object, candidate.object)]
    if candidate.negated:  # the same thing said another way is `implications.widen`'s to end
        if same:
            return Decision(Verdict.RETRACT, "the user said this no longer holds", tuple(f.id for f in same))
        return Decision(Verdict.SKIP, "negates nothing that is known")
    if same:
        return Decision(Verdict.STORE, "restates a known fact", confirms=same[0].id)
    replaced = _named_replacement(candidate, current)
    if replaced:
        return Decision(Verdict.STORE_AND_FLAG, "a correction names the value it replaces", replaced)
    others = tuple(f.id for f in current)
    if not others:
        return Decision(Verdict.STORE, "new fact")
    if not is_single_valued(candidate):
        return Decision(Verdict.STORE, "adds a value to a relation that holds several")
    if candidate.source in DIRECT_SOURCES and candidate.confidence >= DIRECT_CONFIDENCE:
        return Decision(Verdict.STORE_AND_FLAG, "the user stated a new value", others)
    if candidate.scope == "entity" and candidate.confidence < WEAK_ENTITY_CONFIDENCE:
        return Decision(Verdict.REJECT, "a weak claim about someone else contradicts what is known", others)
    return None


def _named_replacement(candidate: Candidate, current: Sequence[StoredFact]) -> tuple[str, ...]:
    if not candidate.replaces:
        return ()
    return tuple(f.id for f in current if same_object(f.object, candidate.replaces))


class FactVerifier:
    """Rules, then the adjudicator for what the rules leave open (bounded by `timeout_s`)."""

    def __init__(
        self,
        adjudicator: Adjudicator | None = None,
        *,
        timeout_s: float = 5.0,
        types: ObjectTypes | None = None,
    ) -> None:
        self._adjudicator = adjudicator
        self._timeout_s = timeout_s
        self._types = types

    async def decide(
        self, candidate: Candidate, current: Sequence[StoredFact], known: Sequence[StoredFact] = ()
    ) -> Decision:
        """The verdict on `candidate`; `current` are the current facts with its subject and relation,
        `known` every current fact (whose names are the user's relatives, for the type check)."""
        decision = decide_by_rules(candidate, current)
        if decision is None or decision.verdict in (Verdict.STORE, Verdict.STORE_AND_FLAG):
            # only what would be stored is typed: a skip or a retraction stores nothing
            mismatch = await self._mismatch(candidate, known)
            if mismatch:
                return Decision(Verdict.REJECT, f"does not fit the relation: {mismatch}")
        if decision is not None:
            return decision
        others = tuple(f.id for f in current)
        answer = await self._judge(candidate, current[0])
        if answer == "complementary":
            return Decision(Verdict.STORE, "the model judged both values true")
        if answer == "implausible":
            return Decision(Verdict.REJECT, "the model judged the new value implausible", others)
        reason = "the model judged it an update" if answer == "update" else "newest statement wins"
        return Decision(Verdict.STORE_AND_FLAG, reason, others)

    async def _mismatch(self, candidate: Candidate, known: Sequence[StoredFact]) -> str | None:
        if self._types is None:
            return None
        try:  # spaCy may parse the sentence: off the event loop
            return await asyncio.to_thread(self._types.mismatch, candidate, known)
        except Exception:  # noqa: BLE001 - an untyped fact is kept, as an unknown type is
            logger.exception("could not type fact %s; keeping it", candidate.id)
            return None

    async def _judge(self, candidate: Candidate, old: StoredFact) -> str | None:
        if self._adjudicator is None:
            return None
        try:
            return await asyncio.wait_for(self._adjudicator.judge(candidate, old), self._timeout_s)
        except Exception:  # noqa: BLE001 - no verdict is a valid outcome: the rules decide
            logger.info("fact adjudication failed or timed out; the newest statement wins")
            return None
