"""An imported graph merged into the data dir's own: what it lacks is added, what it holds stays."""

from __future__ import annotations

from pathlib import Path

from knowledge.graph import KnowledgeGraph
from knowledge.graph_store import GraphStore, merge_graph_file


def test_an_imported_graph_adds_what_this_one_lacks_and_keeps_its_own(tmp_path: Path) -> None:
    mine, theirs = KnowledgeGraph(), KnowledgeGraph()
    for graph in (mine, theirs):
        graph.add_relation(graph.ensure_user(), "lives_in", graph.add_entity("Boston", "place"))
    mine.set_attribute(mine.find("Boston") or "", "note", "mine")
    theirs.set_attribute(theirs.find("Boston") or "", "note", "theirs")
    theirs.add_relation(theirs.ensure_user(), "sibling_of", theirs.add_entity("Jo", "person"))
    GraphStore(tmp_path / "mine.json").save(mine)
    GraphStore(tmp_path / "theirs.json").save(theirs)

    added = merge_graph_file(tmp_path / "theirs.json", tmp_path / "mine.json")
    merged = GraphStore(tmp_path / "mine.json").load()
    assert added == 2  # Jo and the sibling relation; the user, Boston and lives_in were there
    assert merged.find("Jo") is not None
    boston = merged.entity(merged.find("Boston") or "")
    assert boston is not None and boston.attributes["note"] == "mine"
    assert merge_graph_file(tmp_path / "theirs.json", tmp_path / "mine.json") == 0  # nothing twice


def test_purging_a_turns_relations_removes_them_and_the_entities_left_alone() -> None:
    graph = KnowledgeGraph()
    user = graph.ensure_user()
    jo = graph.add_entity("Zebediah Quartermaine", "person")
    graph.add_relation(jo, "cousin_of", user, fact_id="turn-1")
    graph.add_relation(jo, "lives_in", graph.add_entity("Reykjavik", "place"), fact_id="turn-1")
    graph.add_relation(user, "lives_in", graph.add_entity("Boston", "place"), fact_id="turn-2")
    only_the_home = graph.purge_facts({"turn-1"}, keep=[user], saying={("lives_in", "reykjavik")})
    assert only_the_home == 2 and graph.find("Reykjavik") is None and graph.find("Zebediah Quartermaine")
    assert graph.purge_facts({"turn-1"}, keep=[user]) == 2  # the rest the turn told, and Zebediah with it
    assert graph.find("Zebediah Quartermaine") is None and graph.find("Boston") is not None
    assert user in graph
