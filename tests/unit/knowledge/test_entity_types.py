"""The knowledge graph answers `core.ports.EntityTypes`: what a name is known to be, for the fact gate."""

from __future__ import annotations

from pathlib import Path

from core.ports import ExtractedFact
from knowledge.graph_store import GraphStore
from knowledge.service import KnowledgeService


def test_the_graph_knows_a_relative_as_a_person_and_a_workplace_as_an_organization(tmp_path: Path) -> None:
    knowledge = KnowledgeService(GraphStore(tmp_path / "knowledge_graph.json"))
    knowledge.learn(
        [
            ExtractedFact("my sister", "named", "Jo", "family", "entity", "My sister is Jo.", 0.9),
            ExtractedFact(
                "user", "works at", "Bluefin Audio", "work", "user", "I work at Bluefin Audio.", 0.9
            ),
        ],
        "t1",
        1.0,
    )
    assert knowledge.entity_type("Jo") == "person"
    assert knowledge.entity_type("bluefin audio") == "organization"
    assert knowledge.entity_type("Atlantis") is None  # unknown
