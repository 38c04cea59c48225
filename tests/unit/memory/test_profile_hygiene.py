"""Profile hygiene (issue 19): a fact whose object does not fit its relation is rejected by the gate, and the
sentence that once produced "The user is named Bluefin Audio." now yields only what it says."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.nlp import SpacyPipeline
from core.ports import ExtractedFact, TurnRecord
from eval.facts_report import DATA, SETS, expected, load_items, predicted
from memory.facts.extraction import RuleFactExtractor
from memory.facts.grammar import GrammarFactExtractor
from memory.facts.model import Candidate, StoredFact
from memory.facts.object_types import ObjectTypes
from memory.facts.service import FactMemory
from memory.facts.store import FactStore
from memory.facts.verification import FactVerifier, Verdict

BLUEFIN = "I work as a sound engineer at a studio called Bluefin Audio."


class FakeGraph:
    """`core.ports.EntityTypes` with fixed answers."""

    def __init__(self, types: dict[str, str]) -> None:
        self._types = types

    def entity_type(self, name: str) -> str | None:
        return self._types.get(name.lower())


def candidate(subject: str, predicate: str, obj: str, excerpt: str, category: str = "identity") -> Candidate:
    scope = "user" if subject == "user" else "entity"
    return Candidate.from_extracted(ExtractedFact(subject, predicate, obj, category, scope, excerpt, 0.9))


def sister_named(name: str) -> StoredFact:
    return StoredFact(
        "f1",
        "my sister",
        "named",
        name,
        "family",
        "entity",
        "current",
        0.9,
        "user_stated",
        0.9,
        f"My sister is {name}.",
        "t0",
        1.0,
        1.0,
    )


# ------------------------------------------------------------------------------------------- the gate
@pytest.mark.parametrize(
    ("fact", "because"),
    [
        # a company as the user's name: the sentence calls it a studio (parse) / its words say so
        (("user", "named", "Bluefin Audio", BLUEFIN), "calls it a studio"),
        (("user", "named", "Acme Inc", "People here call me Acme Inc."), "'inc' names an organisation"),
        # a studio as a person with a job
        (
            ("Bluefin Audio", "is a", "sound engineer at a studio", BLUEFIN, "work"),
            "'Bluefin Audio' is an organisation",
        ),
        # a pet as the user
        (("user", "named", "Rex", "I have a dog called Rex."), "calls it a dog"),
        # a person or an organisation as a place
        (("user", "lives in", "Jo", "I live with Jo."), "knowledge graph knows it as person"),
        (("user", "lives in", "Bluefin Studios", "I live at Bluefin Studios."), "not a place"),
        # an organisation as a role
        (("user", "is a", "University of Leeds", "I'm a University of Leeds alum."), "not a role or kind"),
        # a place as a workplace (the graph's type)
        (("user", "works at", "Lisbon", "I work at Lisbon."), "not an organisation"),
        # not an age
        (("user", "age", "abc", "I'm abc."), "not a number"),
        (("user", "age", "150", "I'm 150."), "not an age"),
    ],
)
async def test_the_gate_rejects_an_object_that_does_not_fit_with_a_reason(
    nlp: SpacyPipeline, fact: tuple[str, ...], because: str
) -> None:
    verifier = FactVerifier(types=ObjectTypes(nlp, FakeGraph({"jo": "person", "lisbon": "place"})))
    decision = await verifier.decide(candidate(*fact), [])
    assert decision.verdict is Verdict.REJECT
    assert decision.reason.startswith("does not fit the relation: ") and because in decision.reason


async def test_the_gate_rejects_the_users_relative_as_a_workplace(nlp: SpacyPipeline) -> None:
    verifier = FactVerifier(types=ObjectTypes(nlp))
    fact = candidate("user", "works at", "Jo", "I work for Jo.", "work")
    decision = await verifier.decide(fact, [], [sister_named("Jo")])
    assert decision.verdict is Verdict.REJECT and "your sister" in decision.reason
    assert (await verifier.decide(fact, [])).verdict is Verdict.STORE  # unknown: kept


@pytest.mark.parametrize(
    "fact",
    [
        ("user", "named", "Kat", "I go by Kat."),  # spaCy labels it ORG: a label alone is no evidence
        ("my dog", "named", "Biscuit", "My dog is a golden retriever named Biscuit."),
        ("user", "works at", "Bluefin Audio", BLUEFIN),
        ("user", "is a", "sound engineer", BLUEFIN),
        ("user", "is a", "college student", "I'm a college student."),
        ("user", "lives in", "Winnipeg", "originally from Winnipeg"),
        ("user", "age", "fifty-two", "I'm fifty-two."),
    ],
)
async def test_the_gate_keeps_what_fits_or_is_of_unknown_kind(
    nlp: SpacyPipeline, fact: tuple[str, ...]
) -> None:
    decision = await FactVerifier(types=ObjectTypes(nlp, FakeGraph({}))).decide(candidate(*fact), [])
    assert decision.verdict is Verdict.STORE, decision.reason


def test_the_type_check_rejects_no_labelled_fact(nlp: SpacyPipeline) -> None:
    """Over every labelled set, no right fact the reader extracts is rejected (recall is not lost)."""
    reader, types = GrammarFactExtractor(nlp), ObjectTypes(nlp)
    rejected = []
    for name in SETS:
        for item in load_items(DATA / f"facts_{name}.yaml"):
            rows = item["facts"]
            assert isinstance(rows, list)
            gold = {expected(row) for row in rows}
            for fact in reader.extract(str(item["text"])):
                why = types.mismatch(Candidate.from_extracted(fact))
                if why and predicted(fact) in gold:
                    rejected.append((item["text"], why))
    assert rejected == []


# ----------------------------------------------------------------------------------------- extraction
def test_a_studio_called_x_is_where_the_user_works_not_their_name(nlp: SpacyPipeline) -> None:
    wanted = {("user", "works at", "Bluefin Audio"), ("user", "is a", "sound engineer")}
    for reader in (RuleFactExtractor(), GrammarFactExtractor(nlp), GrammarFactExtractor(nlp, rules=False)):
        assert {(f.subject, f.predicate, f.object) for f in reader.extract(BLUEFIN)} == wanted


def test_a_name_after_a_prepositional_phrase_names_the_nearest_noun() -> None:
    got = {
        (f.subject, f.predicate, f.object)
        for f in RuleFactExtractor().extract("I'm a teacher at a school called Hillcrest.")
    }
    assert got == {("user", "is a", "teacher"), ("user", "works at", "Hillcrest")}
    kept = {
        (f.subject, f.predicate, f.object) for f in RuleFactExtractor().extract("I have a dog called Rex.")
    }
    assert ("user", "has a dog", "Rex") in kept  # a name right after its kind still names it


# ------------------------------------------------------------------------------ through the fact service
async def test_the_bluefin_sentence_leaves_a_clean_profile(nlp: SpacyPipeline, tmp_path: Path) -> None:
    """Through the real fact service: the reader's facts, plus the two polluting facts an older reader (or a
    model at session end) produced, leave exactly the workplace and the job current."""
    store = FactStore(tmp_path / "facts.sqlite3")
    facts = FactMemory(store, FactVerifier(types=ObjectTypes(nlp, FakeGraph({}))))
    told = GrammarFactExtractor(nlp).extract(BLUEFIN)
    polluting = [
        ExtractedFact("user", "named", "Bluefin Audio", "identity", "user", BLUEFIN, 0.9),
        ExtractedFact("Bluefin Audio", "is a", "sound engineer at a studio", "work", "entity", BLUEFIN, 0.9),
    ]
    outcome = await facts.record([*told, *polluting], TurnRecord("t1", "s", BLUEFIN, "ok", 1_700_000_000.0))
    listed = [(f.subject, f.predicate, f.object, f.status) for f in facts.list_facts()]  # `facts list --json`
    store.close()
    assert sorted(listed) == [
        ("user", "is_a", "sound engineer", "current"),
        ("user", "works_at", "Bluefin Audio", "current"),
    ]
    assert {f.object for f in outcome.learned} == {
        "sound engineer",
        "Bluefin Audio",
    }  # the graph learns these
