"""The knowledge service: facts a turn states reach the persisted graph, and a later turn gets them back."""

from __future__ import annotations

from pathlib import Path

from core.ports import ExtractedFact, FactChange, GraphContext
from knowledge.graph_store import GraphStore
from knowledge.service import KnowledgeService

T0 = 1_700_000_000.0


def fact(subject: str, predicate: str, obj: str, *, negated: bool = False) -> ExtractedFact:
    excerpt = f"{subject} {predicate} {obj}"
    return ExtractedFact(subject, predicate, obj, "family", "entity", excerpt, 0.9, negated)


def service(tmp_path: Path) -> KnowledgeService:
    return KnowledgeService(GraphStore(tmp_path / "knowledge_graph.json"))


def test_learned_facts_come_back_for_a_message_naming_the_entity(tmp_path: Path) -> None:
    knowledge = service(tmp_path)
    learned = knowledge.learn(
        [fact("my sister", "is named", "Jo Marsh"), fact("Jo Marsh", "lives in", "New York City")], "t1", T0
    )
    assert learned == 2
    context = knowledge.context_for("What should I get my sister for her birthday?")
    assert context.entities == ("Jo Marsh",)
    assert "Jo Marsh lives in New York City." in context.sentences
    assert context.boost is not None


def test_the_graph_survives_a_restart(tmp_path: Path) -> None:
    service(tmp_path).learn([fact("user", "works at", "Acme Robotics")], "t1", T0)
    context = service(tmp_path).context_for("how is work at acme robotics going")
    assert context.entities == ("Acme Robotics",)
    assert any("Acme Robotics" in sentence for sentence in context.sentences)


def test_a_message_about_only_the_user_gets_no_graph_context(tmp_path: Path) -> None:
    knowledge = service(tmp_path)
    knowledge.learn([fact("I", "live in", "Denver")], "t1", T0)
    assert knowledge.context_for("where do I live again?") == GraphContext()  # the profile's job


def test_a_message_naming_nothing_known_gets_no_context(tmp_path: Path) -> None:
    knowledge = service(tmp_path)
    knowledge.learn([fact("my sister", "is named", "Jo")], "t1", T0)
    context = knowledge.context_for("tell me a joke about compilers")
    assert context.sentences == () and context.boost is None


def test_the_boost_favours_memories_that_mention_the_entity_or_its_neighbours(tmp_path: Path) -> None:
    knowledge = service(tmp_path)
    knowledge.learn([fact("my sister", "is named", "Jo"), fact("Jo", "lives in", "Boston")], "t1", T0)
    boost = knowledge.context_for("how is my sister?").boost
    assert boost is not None
    bonus = boost({"a": "Jo called about the move", "b": "Boston was rainy", "c": "I fixed the bike"})
    assert bonus["a"] == 1.0
    assert 0.0 < bonus["b"] < bonus["a"]
    assert "c" not in bonus


def test_a_negated_fact_ends_the_edge_and_keeps_it_as_history(tmp_path: Path) -> None:
    knowledge = service(tmp_path)
    knowledge.learn([fact("user", "works at", "Acme")], "t1", T0)
    assert knowledge.learn([fact("user", "works at", "Acme", negated=True)], "t2", T0 + 60) == 1
    edges = knowledge.graph.edges("user", "works_at", include_superseded=True)
    assert [(e.target, e.superseded) for e in edges] == [("acme", True)]
    assert knowledge.graph.edges("user", "works_at") == []


def test_a_negated_fact_about_something_unknown_creates_nothing(tmp_path: Path) -> None:
    knowledge = service(tmp_path)
    assert knowledge.learn([fact("user", "works at", "Initech", negated=True)], "t1", T0) == 0
    assert len(knowledge.graph) == 0
    assert not (tmp_path / "knowledge_graph.json").exists()  # nothing changed, nothing written


def test_a_graph_behind_its_fact_store_catches_up_once_from_its_last_save(tmp_path: Path) -> None:
    store = GraphStore(tmp_path / "knowledge_graph.json", clock=lambda: T0 + 10)
    assert KnowledgeService(store).saved_at is None  # nothing saved yet: everything is to be replayed
    KnowledgeService(store).learn([fact("my sister", "is named", "Jo")], "t1", T0)
    knowledge = KnowledgeService(GraphStore(tmp_path / "knowledge_graph.json"))
    assert knowledge.saved_at == T0 + 10
    # what the fact store changed after that save, as a crash before the graph's own save left it
    missed = [
        FactChange(fact("Jo", "lives in", "Boston"), "t2", T0 + 20),
        FactChange(fact("Jo", "lives in", "Boston", negated=True), "t3", T0 + 30),
        FactChange(fact("Jo", "lives in", "Denver"), "t3", T0 + 30),
    ]
    assert knowledge.catch_up(missed) == 3
    again = KnowledgeService(GraphStore(tmp_path / "knowledge_graph.json"))
    assert "Jo lives in Denver." in again.context_for("how is Jo?").sentences  # saved
    edges = again.graph.edges(again.graph.find("Jo") or "", "lives_in", include_superseded=True)
    assert sorted((e.target, e.superseded) for e in edges) == [("boston", True), ("denver", False)]
    assert again.catch_up([]) == 0
