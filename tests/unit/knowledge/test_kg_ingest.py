"""Fact triples into the graph: the user node, possessive roles, placeholders, pets, attributes, history."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.relations import ROLES, USER_ID, normalize
from knowledge.entities import EntityResolver
from knowledge.graph import KnowledgeGraph
from knowledge.graph_facts import Triple, graph_worthy, ingest_triples

T0 = 1_700_000_000.0


@pytest.fixture
def graph(clock: Callable[[], float]) -> KnowledgeGraph:
    return KnowledgeGraph(clock)


def relations(graph: KnowledgeGraph) -> set[tuple[str, str, str]]:
    return {(e.source, e.relation, e.target) for e in graph.edges()}


def test_user_words_map_to_one_user_node(graph: KnowledgeGraph) -> None:
    ingest_triples(graph, [("I", "like", "jazz"), ("user", "works at", "Acme"), ("me", "speaks", "French")])
    assert relations(graph) == {
        (USER_ID, "likes", "jazz"),
        (USER_ID, "works_at", "acme"),
        (USER_ID, "speaks", "french"),
    }
    acme = graph.entity("acme")
    assert acme is not None and acme.type == "organization"


def test_every_phrasing_of_a_sister_lands_on_the_same_edge(graph: KnowledgeGraph) -> None:
    ingest_triples(
        graph,
        [
            ("Jo", "is", "my sister", 0.9, "f1", T0),
            ("user", "has a sister", "Jo", 0.9, "f2", T0),
            ("my sister", "is named", "Jo", 0.9, "f3", T0),
            ("Jo", "sister of", "user", 0.9, "f4", T0),
        ],
    )
    (edge,) = graph.edges("jo", "sister_of")
    assert edge.target == USER_ID and edge.fact_ids == ("f1", "f2", "f3", "f4") and edge.weight == 4.0
    jo = graph.entity("jo")
    assert jo is not None and jo.type == "person"


def test_facts_about_an_unnamed_sister_move_to_her_once_named(graph: KnowledgeGraph) -> None:
    ingest_triples(
        graph,
        [
            ("my sister", "lives in", "Boston", 0.9, "f1", T0 - 100),
            ("my sister", "birthday", "March 3", 0.9, "f2", T0 - 100),
            ("my sister", "is named", "Jo", 0.9, "f3", T0),
        ],
    )
    assert "user_sister" not in graph  # the placeholder was folded into Jo
    assert relations(graph) == {("jo", "sister_of", USER_ID), ("jo", "lives_in", "boston")}
    jo = graph.entity("jo")
    assert jo is not None and jo.attributes == {"birthday": "March 3"}
    assert "the user's sister" not in jo.aliases


def test_my_sister_resolves_to_the_known_sister(graph: KnowledgeGraph) -> None:
    ingest_triples(graph, [("Jo", "is", "my sister"), ("my sister", "works at", "Acme")])
    assert ("jo", "works_at", "acme") in relations(graph)


def test_a_description_is_not_a_name(graph: KnowledgeGraph) -> None:
    ingest_triples(graph, [("Jo", "is", "my sister"), ("my sister", "is", "a nurse")])
    assert ("jo", "is_a", "nurse") in relations(graph)


def test_pets_get_their_kind(graph: KnowledgeGraph) -> None:
    ingest_triples(graph, [("user", "has a dog named", "Pepper"), ("Jo", "has a cat named", "Miso")])
    assert {
        (USER_ID, "has_pet", "pepper"),
        ("pepper", "is_a", "dog"),
        ("jo", "has_pet", "miso"),
        ("miso", "is_a", "cat"),
    } <= relations(graph)
    pepper, miso = graph.entity("pepper"), graph.entity("miso")
    assert pepper is not None and miso is not None and pepper.type == miso.type == "pet"


def test_my_dog_named_later(graph: KnowledgeGraph) -> None:
    ingest_triples(graph, [("my dog", "likes", "squirrels"), ("my dog", "is called", "Pepper")])
    assert {(USER_ID, "has_pet", "pepper"), ("pepper", "is_a", "dog"), ("pepper", "likes", "squirrels")} <= (
        relations(graph)
    )
    assert "user_dog" not in graph


def test_a_move_supersedes_and_is_counted(graph: KnowledgeGraph) -> None:
    report = ingest_triples(
        graph,
        [
            Triple("user", "lives in", "Portland", 0.9, "f1", T0 - 100),
            Triple("user", "moved to", "New York", 0.9, "f2", T0),
        ],
    )
    assert report.superseded == 1 and report.edges == 2
    (old,) = [e for e in graph.edges(USER_ID, "lives_in", include_superseded=True) if e.superseded]
    assert old.target == "portland" and old.valid_to == T0 and old.fact_ids == ("f1",)


def test_values_that_are_not_entities_become_attributes(graph: KnowledgeGraph) -> None:
    report = ingest_triples(
        graph,
        [("user", "age", "34"), ("user", "runs", "every morning"), ("user", "trained for", "3 weeks")],
    )
    user = graph.entity(USER_ID)
    assert user is not None and report.attributes == 3 and graph.edges() == []
    assert dict(user.attributes) == {"age": "34", "runs": "every morning", "trained_for": "3 weeks"}


def test_weak_and_malformed_rows_are_skipped(graph: KnowledgeGraph) -> None:
    report = ingest_triples(
        graph,
        [
            ("user", "likes", "olives", 0.2),  # below min_confidence
            ("it", "is", "great"),  # junk subject
            ("user", "", "x"),
            ("only two",),
            ("user", "likes", "tea", "not a number"),
        ],
    )
    assert report.skipped == 5 and len(graph) == 0


def test_timestamps_accept_iso_text_and_numbers(graph: KnowledgeGraph) -> None:
    ingest_triples(graph, [("user", "works at", "Acme", 0.9, "f1", "2024-01-02T03:04:05+00:00")])
    (edge,) = graph.edges(USER_ID, "works_at")
    assert edge.valid_from == 1704164645.0


@pytest.mark.parametrize(
    ("value", "worthy"),
    [
        ("Boston", True),
        ("New York", True),
        ("March 3", False),
        ("34", False),
        ("a very long phrase of words", False),
    ],
)
def test_graph_worthiness(value: str, worthy: bool) -> None:
    assert graph_worthy(value) is worthy


def test_replaying_the_same_facts_changes_nothing(graph: KnowledgeGraph) -> None:
    facts = [
        Triple("user", "lives in", "Portland", 0.9, "f1", T0 - 100),
        Triple("user", "moved to", "New York", 0.9, "f2", T0),
        Triple("Jo", "is", "my sister", 0.9, "f3", T0),
    ]
    ingest_triples(graph, facts)
    before = sorted(graph.edges(include_superseded=True), key=lambda e: e.key)
    ingest_triples(graph, facts)  # a resumed shutdown replays its facts
    assert sorted(graph.edges(include_superseded=True), key=lambda e: e.key) == before


@pytest.mark.parametrize(
    ("said", "relation"),
    [
        ("my boyfriend", "boyfriend_of"),
        ("my girlfriend", "girlfriend_of"),
        ("my fiancée", "fiance_of"),
        ("my niece", "niece_of"),
        ("my stepdad", "stepfather_of"),
        ("my granddaughter", "grandchild_of"),
    ],
)
def test_partners_and_extended_family_are_roles_not_entities(
    graph: KnowledgeGraph, said: str, relation: str
) -> None:
    ingest_triples(graph, [(said, "is named", "Sam"), (said, "lives in", "Paris")])
    assert relations(graph) == {("sam", relation, USER_ID), ("sam", "lives_in", "paris")}
    assert EntityResolver(graph).resolve_ids(f"how is {said} doing?") == ["sam"]


def test_every_role_the_fact_extractor_reads_is_a_graph_role() -> None:
    # The extractor (memory) and the graph (knowledge) keep separate word lists; a role only the extractor
    # knows used to become an entity called "my boyfriend".
    from memory.facts.extraction_rules import ROLE_WORDS

    extracted = {normalize(word) for word in ROLE_WORDS}
    known = {normalize(noun) for nouns in ROLES.values() for noun in nouns}
    assert extracted <= known, sorted(extracted - known)
