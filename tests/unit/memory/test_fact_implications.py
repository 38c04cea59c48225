"""What a fact means beyond its own words, through the real fact store: pronouns resolved to whom was named
before, partner roles moving forward, a trade ending with its workplace, one diet at a time, objects
compared without their gerunds and determiners."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.ports import ExtractedFact, TurnRecord
from memory.facts.matching import names_same_thing, object_key, same_object
from memory.facts.service import FactMemory
from memory.facts.store import FactStore
from memory.facts.verification import FactVerifier


def fact(s: str, p: str, o: str, *, negated: bool = False, excerpt: str = "") -> ExtractedFact:
    return ExtractedFact(s, p, o, "family", "user", excerpt or f"{s} {p} {o}", 0.9, negated)


@pytest.fixture
def facts(tmp_path: Path) -> FactMemory:
    return FactMemory(FactStore(tmp_path / "facts.sqlite3"), FactVerifier())


async def tell(facts: FactMemory, n: int, text: str, *found: ExtractedFact) -> None:
    await facts.record(list(found), TurnRecord(f"t{n}", "s", text, "ok", 1_700_000_000.0 + n))


def status(facts: FactMemory) -> dict[tuple[str, str, str], str]:
    return {(f.subject, f.predicate, f.object): f.status for f in facts.list_facts()}


def test_objects_match_without_gerunds_determiners_or_the_trade_suffix() -> None:
    assert object_key("playing tennis") == "tennis" and object_key("the Tennis") == "tennis"
    assert same_object("teaching", "teacher") and same_object("nursing", "a nurse")
    assert not same_object("vegan", "vegetarian") and not same_object("34", "43")


async def test_a_pronoun_means_the_role_whose_name_the_message_mentions(facts: FactMemory) -> None:
    await tell(facts, 1, "", fact("my puppy", "named", "Bella"), fact("my cat", "named", "Miso"))
    await tell(
        facts, 2, "we ended up calling her Pepper, Bella didn't suit her", fact("her", "named", "Pepper")
    )
    listed = status(facts)
    assert listed[("my puppy", "named", "Pepper")] == "current"
    assert listed[("my puppy", "named", "Bella")] == "superseded"
    assert listed[("my cat", "named", "Miso")] == "current"


async def test_a_pronoun_nobody_was_named_for_is_dropped(facts: FactMemory) -> None:
    await tell(facts, 1, "we named him Rex", fact("him", "named", "Rex"))
    assert facts.list_facts() == []


async def test_marriage_moves_a_partner_role_forward_and_divorce_ends_it(facts: FactMemory) -> None:
    await tell(facts, 1, "", fact("my girlfriend", "named", "Lena"), fact("my sister", "named", "Ana"))
    await tell(facts, 2, "", fact("user", "married to", "Lena"), fact("my spouse", "named", "Lena"))
    listed = status(facts)
    assert listed[("my girlfriend", "named", "Lena")] == "superseded"
    assert listed[("my spouse", "named", "Lena")] == "current"
    assert listed[("my sister", "named", "Ana")] == "current"
    await tell(facts, 3, "", fact("user", "married to", "Lena", negated=True))
    assert all(s == "superseded" for (_, _, o), s in status(facts).items() if o == "Lena")


async def test_leaving_a_trade_ends_the_workplace_said_with_it(facts: FactMemory) -> None:
    said = "I'm a teacher at Hillcrest Primary"
    await tell(
        facts,
        1,
        said,
        fact("user", "is a", "teacher", excerpt=said),
        fact("user", "works at", "Hillcrest Primary", excerpt=said),
    )
    await tell(facts, 2, "", fact("user", "works at", "Acme", excerpt="I also work at Acme"))
    await tell(facts, 3, "I left teaching", fact("user", "is a", "teaching", negated=True))
    listed = status(facts)
    assert listed[("user", "is_a", "teacher")] == "superseded"
    assert listed[("user", "works_at", "Hillcrest Primary")] == "superseded"


async def test_one_diet_at_a_time_other_kinds_stay(facts: FactMemory) -> None:
    await tell(facts, 1, "", fact("user", "is a", "vegan"), fact("user", "is a", "teacher"))
    await tell(facts, 2, "", fact("user", "is a", "pescatarian"))
    listed = status(facts)
    assert listed[("user", "is_a", "vegan")] == "superseded"
    assert listed[("user", "is_a", "pescatarian")] == "current"
    assert listed[("user", "is_a", "teacher")] == "current"


async def test_retracting_an_activity_matches_it_however_it_was_said(facts: FactMemory) -> None:
    await tell(facts, 1, "", fact("user", "likes", "playing tennis"), fact("user", "likes", "baking"))
    await tell(facts, 2, "", fact("user", "likes", "tennis", negated=True))
    listed = status(facts)
    assert listed[("user", "likes", "playing tennis")] == "superseded"
    assert listed[("user", "likes", "baking")] == "current"


def test_a_thing_is_named_by_its_head_noun_or_a_word_of_the_relation() -> None:
    assert names_same_thing("Corolla", "owns", "red Toyota Corolla")
    assert names_same_thing("climbing", "goes_rock_climbing", "every weekend")
    assert names_same_thing("nursing", "is_a", "nurse") and names_same_thing("dog", "walks_the_dog", "daily")
    assert not names_same_thing("red wine", "owns", "red Toyota Corolla")
    assert not names_same_thing("coffee", "works_at", "Coffee Co")


async def test_a_change_ends_the_same_thing_under_any_relation(facts: FactMemory) -> None:
    """ "I no longer play the cello" is read as a liking that ended: it ends "plays cello", nothing else."""
    await tell(facts, 1, "I play the cello", fact("user", "plays", "cello"), fact("user", "plays", "piano"))
    await tell(facts, 2, "I sold the Corolla", fact("user", "owns", "red Toyota Corolla"))
    await tell(facts, 3, "I no longer play the cello", fact("user", "likes", "cello", negated=True))
    await tell(facts, 4, "I sold the Corolla", fact("user", "owns", "Corolla", negated=True))
    assert status(facts) == {
        ("user", "plays", "cello"): "superseded",
        ("user", "plays", "piano"): "current",
        ("user", "owns", "red Toyota Corolla"): "superseded",
    }
