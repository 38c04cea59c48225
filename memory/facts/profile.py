"""The user profile: the current facts about the user and their people, as the prompt's profile section.

Only current facts are shown, with their truth as read now (decayed since the last confirmation). Passing
conditions expire: a health problem stated days ago ("I have a cold") is not shown after its time-to-live,
though the fact itself is kept. Facts are ordered by category (who the user is first) and then by truth.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from core.ports import FACT_CATEGORIES
from core.relations import ROLES, normalize
from memory.facts.model import USER, StoredFact, subject_key

_HOUR = 3600.0
# Relations that describe a passing condition, and how long they stay in the profile after last being said.
_HEALTH = ("has_cold", "has_flu", "is_sick", "is_ill", "is_injured", "recovering_from")
_AWAY = ("is_travelling", "is_visiting", "is_staying_at", "is_away")
TRANSIENT_TTL_S = MappingProxyType({**dict.fromkeys(_HEALTH, 96 * _HOUR), **dict.fromkeys(_AWAY, 24 * _HOUR)})
MIN_TRUTH = 0.35
# The user's relations that name one of their people or animals.
_NAMING = frozenset({"has_pet", "named", "knows", "spouse_of", "friend_of", *ROLES})


def about_the_user(fact: StoredFact) -> bool:
    """The user's own facts, their relations ("Jo sister_of user") and their people ("my sister …")."""
    key = subject_key(fact.subject)
    return key == USER or normalize(fact.object) == USER or key.startswith("my ")


def is_expired(fact: StoredFact, now: float) -> bool:
    ttl = TRANSIENT_TTL_S.get(fact.relation)
    return ttl is not None and now - fact.last_confirmed_at > ttl


def the_users_own(facts: Sequence[StoredFact]) -> frozenset[str]:
    """The names of the user's people and animals among current facts: what the user's own facts name
    ("user has_pet Pepper", "my sister named Jo") and who is named in a relation to the user ("Jo
    sister_of user"). Their own facts ("Pepper is a grey cat") belong in the profile too."""
    named: set[str] = set()
    for fact in facts:
        if not fact.is_current:
            continue
        key = subject_key(fact.subject)
        if (key == USER or key.startswith("my ")) and fact.relation in _NAMING:
            named.add(normalize(fact.object))
        elif normalize(fact.object) == USER:
            named.add(subject_key(fact.subject))
    return frozenset(named - {USER, ""})


def profile_facts(facts: Sequence[StoredFact], now: float, *, limit: int = 40) -> list[StoredFact]:
    """Current, unexpired, believed facts about the user and theirs, most important categories first."""
    order = {category: i for i, category in enumerate(FACT_CATEGORIES)}
    theirs = the_users_own(facts)
    kept = [
        f
        for f in facts
        if f.is_current
        and (about_the_user(f) or subject_key(f.subject) in theirs)
        and not is_expired(f, now)
        # what was done to a fact (a correction, a contradiction) takes it out; its age alone never does: a
        # name told six months ago reads as less certain (truth decays to 0.3), it is not forgotten
        and f.truth >= MIN_TRUTH
    ]
    kept.sort(key=lambda f: (order.get(f.category, len(order)), -f.truth, f.created_at))
    return kept[:limit]
