"""The rule-based fact extractor's output, fed to graph ingestion, lands on the intended edges."""

from __future__ import annotations

from collections.abc import Callable

from core.relations import USER_ID
from knowledge.graph import KnowledgeGraph
from knowledge.graph_facts import ingest_triples
from memory.facts.extraction import RuleFactExtractor

MESSAGE = """My name is Sam and I'm 34. I live in Denver and I work at Acme Robotics.
My sister Jo is a nurse. My mom lives in Lyon. I have a dog named Rex. My cat Pepper loves tuna.
We adopted a kitten called Luna. I go to the gym every Monday. I love hiking and jazz.
My wife is Ana. I'm from Cork originally. I no longer work at Initech."""


def ingest(message: str, clock: Callable[[], float]) -> KnowledgeGraph:
    graph = KnowledgeGraph(clock)
    facts = RuleFactExtractor().extract(message)
    rows = [
        (f.subject, f.predicate, f.object, f.confidence, f"f{i}")
        for i, f in enumerate(facts)
        if not f.negated
    ]
    report = ingest_triples(graph, rows)
    assert report.skipped == 0
    return graph


def test_extracted_facts_become_the_intended_graph_edges(clock: Callable[[], float]) -> None:
    graph = ingest(MESSAGE, clock)
    edges = {(e.source, e.relation, e.target) for e in graph.edges()}
    assert {
        (USER_ID, "named", "sam"),
        (USER_ID, "lives_in", "denver"),
        (USER_ID, "works_at", "acme_robotics"),
        (USER_ID, "born_in", "cork"),
        ("jo", "sister_of", USER_ID),
        ("jo", "is_a", "nurse"),
        ("ana", "spouse_of", USER_ID),
        (USER_ID, "has_pet", "rex"),
        ("rex", "is_a", "dog"),
        (USER_ID, "has_pet", "pepper"),
        ("pepper", "is_a", "cat"),
        ("pepper", "likes", "tuna"),
        (USER_ID, "has_pet", "luna"),
        ("luna", "is_a", "kitten"),
        (USER_ID, "likes", "hiking"),
        (USER_ID, "likes", "jazz"),
        ("user_mother", "mother_of", USER_ID),
        ("user_mother", "lives_in", "lyon"),
    } <= edges
    assert not any("initech" in edge for edge in edges)  # negated facts are not asserted


def test_ages_and_schedules_become_user_attributes(clock: Callable[[], float]) -> None:
    user = ingest(MESSAGE, clock).entity(USER_ID)
    assert user is not None
    assert user.attributes["age"] == "34"
    assert user.attributes["goes_to_the_gym"] == "every Monday"


def test_a_pet_named_later_takes_over_the_unnamed_one(clock: Callable[[], float]) -> None:
    graph = ingest("My dog loves the beach. My dog's name is Rex.", clock)
    edges = {(e.source, e.relation, e.target) for e in graph.edges()}
    assert {(USER_ID, "has_pet", "rex"), ("rex", "is_a", "dog"), ("rex", "likes", "beach")} <= edges
    rex = graph.entity("rex")
    assert rex is not None and rex.type == "pet"
