"""KnowledgeGraph: canonical relations, several edges per pair, supersession that keeps history, merging."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.relations import canonical_relation, make_entity_id, normalize
from knowledge.graph import KnowledgeGraph

T0 = 1_700_000_000.0


@pytest.fixture
def graph(clock: Callable[[], float]) -> KnowledgeGraph:
    return KnowledgeGraph(clock)


@pytest.mark.parametrize(
    ("predicate", "expected"),
    [
        ("lives in", ("lives_in", False)),
        ("Moved to", ("lives_in", False)),
        ("resides in", ("lives_in", False)),
        ("works at", ("works_at", False)),
        ("employed by", ("works_at", False)),
        ("is the sister of", ("sister_of", False)),
        ("sister_of", ("sister_of", False)),
        ("has a sister", ("sister_of", True)),
        ("sister", ("sister_of", True)),
        ("has pet", ("has_pet", False)),
        ("collects stamps from", ("collects_stamps_from", False)),
    ],
)
def test_predicates_are_canonicalised(predicate: str, expected: tuple[str, bool]) -> None:
    assert canonical_relation(predicate) == expected


def test_names_normalise_without_case_or_punctuation() -> None:
    assert normalize("NEW-York!") == "new york"
    assert normalize("Jo's") == "jo"
    assert make_entity_id("Aunt May") == "aunt_may"


def test_entities_are_typed_counted_and_timed(graph: KnowledgeGraph) -> None:
    first = graph.add_entity("Pepper", at=T0 - 10)
    graph.add_entity("pepper", "pet", aliases=["Pep"], at=T0)
    entity = graph.entity(first)
    assert entity is not None
    assert (entity.type, entity.mentions, entity.first_seen, entity.last_seen) == ("pet", 2, T0 - 10, T0)
    assert entity.aliases == ("Pep",)
    assert graph.find("PEP") == "pepper"
    graph.add_entity("Pepper", "thing")  # a vaguer type never replaces a specific one
    pepper = graph.entity("pepper")
    assert pepper is not None and pepper.type == "pet"


def test_two_relations_between_the_same_pair_are_both_kept(graph: KnowledgeGraph) -> None:
    jo, sam = graph.add_entity("Jo", "person"), graph.add_entity("Sam", "person")
    graph.add_relation(jo, "friend of", sam)
    graph.add_relation(jo, "works with", sam)
    assert sorted(e.relation for e in graph.edges(jo, target=sam)) == ["friend_of", "works_with"]
    assert graph.nx.number_of_edges(jo, sam) == 2


def test_a_re_mention_strengthens_the_same_edge(graph: KnowledgeGraph) -> None:
    jo, tulips = graph.add_entity("Jo", "person"), graph.add_entity("tulips")
    graph.add_relation(jo, "likes", tulips, truth=0.5, fact_id="f1")
    edge = graph.add_relation(jo, "loves", tulips, truth=0.5, fact_id="f2")
    assert len(graph.edges(jo, "likes")) == 1
    assert edge.weight == 2.0 and edge.truth == pytest.approx(0.75) and edge.fact_ids == ("f1", "f2")


def test_a_new_value_of_a_functional_relation_supersedes_and_keeps_history(graph: KnowledgeGraph) -> None:
    user = graph.ensure_user()
    portland, nyc = graph.add_entity("Portland", "place"), graph.add_entity("New York", "place")
    old = graph.add_relation(user, "lives in", portland, fact_id="f1", at=T0 - 100)
    new = graph.add_relation(user, "moved to", nyc, fact_id="f2", at=T0)
    history = {e.target: e for e in graph.edges(user, "lives_in", include_superseded=True)}
    assert set(history) == {"portland", "new_york"}  # nothing deleted
    kept = history["portland"]
    assert kept.key == old.key and kept.superseded and kept.valid_to == T0 and kept.superseded_by == new.key
    assert [e.target for e in graph.edges(user, "lives_in")] == ["new_york"]  # current view
    assert history["new_york"].valid_to is None and not history["new_york"].superseded
    assert graph.neighbors(user) == {"new_york"}
    assert graph.neighbors(user, include_superseded=True) == {"new_york", "portland"}


def test_moving_back_creates_a_new_interval(graph: KnowledgeGraph) -> None:
    user = graph.ensure_user()
    a, b = graph.add_entity("Austin", "place"), graph.add_entity("Boston", "place")
    graph.add_relation(user, "lives in", a, at=T0 - 200)
    graph.add_relation(user, "lives in", b, at=T0 - 100)
    graph.add_relation(user, "lives in", a, at=T0)
    edges = graph.edges(user, "lives_in", include_superseded=True)
    assert len(edges) == 3
    assert [e.target for e in edges if not e.superseded] == ["austin"]


def test_a_late_arriving_old_fact_is_recorded_as_history(graph: KnowledgeGraph) -> None:
    user = graph.ensure_user()
    nyc, paris = graph.add_entity("New York", "place"), graph.add_entity("Paris", "place")
    graph.add_relation(user, "lives in", nyc, at=T0)
    late = graph.add_relation(user, "lives in", paris, at=T0 - 1000)
    assert late.superseded and late.valid_to == T0
    assert [e.target for e in graph.edges(user, "lives_in")] == ["new_york"]


def test_non_functional_relations_accumulate(graph: KnowledgeGraph) -> None:
    user = graph.ensure_user()
    for name in ("tea", "jazz"):
        graph.add_relation(user, "likes", graph.add_entity(name))
    assert sorted(e.target for e in graph.edges(user, "likes")) == ["jazz", "tea"]


def test_end_relation_marks_without_deleting(graph: KnowledgeGraph) -> None:
    user, acme = graph.ensure_user(), graph.add_entity("Acme", "organization")
    edge = graph.add_relation(user, "works at", acme, at=T0 - 50)
    graph.end_relation(edge, at=T0)
    assert graph.edges(user, "works_at") == []
    (kept,) = graph.edges(user, "works_at", include_superseded=True)
    assert kept.superseded and kept.valid_to == T0


def test_merge_folds_edges_aliases_and_counts(graph: KnowledgeGraph) -> None:
    nyc, big_apple = graph.add_entity("New York", "place"), graph.add_entity("NYC", "place")
    may = graph.add_entity("Aunt May", "person")
    graph.add_relation(may, "lives in", big_apple, fact_id="f1")
    graph.merge(nyc, big_apple)
    assert "nyc" not in graph
    merged = graph.entity(nyc)
    assert merged is not None and merged.aliases == ("NYC",)
    assert merged.mentions == 2
    assert [e.target for e in graph.edges(may, "lives_in")] == ["new_york"]


def test_unknown_entities_are_refused(graph: KnowledgeGraph) -> None:
    graph.add_entity("Jo", "person")
    with pytest.raises(KeyError):
        graph.add_relation("jo", "likes", "nobody")


def test_node_link_round_trip_keeps_everything(personal_graph: KnowledgeGraph) -> None:
    copy = KnowledgeGraph.from_node_link(personal_graph.to_node_link())
    assert copy.entities() == personal_graph.entities()
    key = lambda e: (e.source, e.target, e.key)  # noqa: E731
    assert sorted(copy.edges(include_superseded=True), key=key) == sorted(
        personal_graph.edges(include_superseded=True), key=key
    )
    nxt = copy.add_relation("jo", "likes", copy.add_entity("jazz"))
    assert nxt.key not in {e.key for e in personal_graph.edges(include_superseded=True)}
