"""Depth-2 expansion ranked by lateral connectivity, the junk filter, prompt sentences and the graph bonus."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.relations import USER_ID
from knowledge.entities import EntityResolver
from knowledge.expansion import expand, expansion_terms, graph_bonus, graph_sentences, is_junk
from knowledge.graph import KnowledgeGraph

T0 = 1_700_000_000.0


def build(clock: Callable[[], float], edges: list[tuple[str, str, str]]) -> KnowledgeGraph:
    graph = KnowledgeGraph(clock)
    for source, relation, target in edges:
        ends = [graph.add_entity(name) for name in (source, target)]
        graph.add_relation(ends[0], relation, ends[1], truth=0.8)
    return graph


def ids(expanded: list) -> list[str]:
    return [e.entity_id for e in expanded]


def test_a_node_linked_to_two_seeds_outranks_one_linked_to_one(clock: Callable[[], float]) -> None:
    # Insertion order puts the weaker node first, so the order below comes from the scores alone.
    graph = build(
        clock,
        [
            ("Ann", "knows", "Yuri"),
            ("Ann", "knows", "Xena"),
            ("Bob", "knows", "Xena"),
            ("Bob", "knows", "Vic"),
        ],
    )
    ranked = expand(graph, ["ann", "bob"])
    assert ids(ranked)[0] == "xena"
    assert ranked[0].seed_links == 2 and ranked[0].score > ranked[1].score
    assert {e.entity_id: e.seed_links for e in ranked} == {"xena": 2, "yuri": 1, "vic": 1}


def test_lateral_links_among_expanded_nodes_lift_a_node(clock: Callable[[], float]) -> None:
    graph = build(
        clock,
        [
            ("Ann", "knows", "Pia"),
            ("Ann", "knows", "Quin"),
            ("Ann", "knows", "Rui"),
            ("Pia", "knows", "Quin"),
            ("Pia", "knows", "Zed"),  # 2 hops, one link
            ("Quin", "knows", "Wes"),
            ("Rui", "knows", "Wes"),  # 2 hops, two links
        ],
    )
    ranked = expand(graph, ["ann"])
    order = ids(ranked)
    assert order.index("pia") < order.index("rui")  # pia also links to quin
    assert order.index("wes") < order.index("zed")
    assert {e.entity_id: e.hops for e in ranked}["wes"] == 2


def test_depth_limits_the_walk(clock: Callable[[], float]) -> None:
    graph = build(clock, [("A1", "knows", "B1"), ("B1", "knows", "C1"), ("C1", "knows", "D1")])
    assert ids(expand(graph, ["a1"])) == ["b1", "c1"]
    assert ids(expand(graph, ["a1"], depth=1)) == ["b1"]


def test_truth_and_weight_count(clock: Callable[[], float]) -> None:
    graph = build(clock, [])
    for name in ("Ann", "Sure", "Unsure", "Often"):
        graph.add_entity(name)
    graph.add_relation("ann", "knows", "sure", truth=0.9)
    graph.add_relation("ann", "knows", "unsure", truth=0.3)
    graph.add_relation("ann", "knows", "often", truth=0.9)
    graph.add_relation("ann", "knows", "often", truth=0.0, weight=3.0)  # re-mentioned: weight 4
    assert ids(expand(graph, ["ann"])) == ["often", "sure", "unsure"]


def test_junk_hubs_and_generic_nodes_are_filtered(clock: Callable[[], float]) -> None:
    edges = [("Ann", "likes", "Music"), ("Ann", "knows", "Bea"), ("Ann", "mentioned", "stuff")]
    edges += [("Ann", "did", "3 weeks"), ("Bea", "likes", "Music")]
    edges += [(f"Person{i}", "likes", "Music") for i in range(45)]  # Music is a hub
    graph = build(clock, edges)
    assert is_junk(graph, "music") and is_junk(graph, "stuff") and is_junk(graph, "3_weeks")
    assert not is_junk(graph, "bea")
    assert ids(expand(graph, ["ann"])) == ["bea"]  # and nothing is reached through the hub
    assert "music" in ids(expand(graph, ["ann"], hub_degree=100))


def test_the_user_is_never_expanded_through(personal_graph: KnowledgeGraph) -> None:
    expanded = ids(expand(personal_graph, ["jo"]))
    assert USER_ID not in expanded
    assert "pepper" not in expanded and "aunt_may" not in expanded  # only linked through the user
    assert set(expanded) == {"boston", "tulips"}


def test_superseded_edges_are_excluded_by_default(personal_graph: KnowledgeGraph) -> None:
    personal_graph.add_relation("jo", "moved to", personal_graph.add_entity("Denver", "place"), at=T0)
    assert "boston" not in ids(expand(personal_graph, ["jo"]))
    assert "boston" in ids(expand(personal_graph, ["jo"], include_superseded=True))


def test_graph_sentences_read_naturally(personal_graph: KnowledgeGraph) -> None:
    resolver = EntityResolver(personal_graph)
    sister = graph_sentences(personal_graph, resolver.resolve_ids("my sister's birthday"))
    assert sister[0] == "Jo is the user's sister."
    assert {"Jo lives in Boston.", "Jo likes tulips.", "Jo's birthday is March 3."} <= set(sister)
    dog = graph_sentences(personal_graph, resolver.resolve_ids("my dog"))
    assert "Pepper is a dog." in dog and "The user has a pet named Pepper." in dog
    assert len(graph_sentences(personal_graph, ["jo"], max_sentences=2)) == 2
    assert graph_sentences(personal_graph, []) == []


def test_superseded_facts_stay_out_of_sentences(personal_graph: KnowledgeGraph) -> None:
    personal_graph.add_relation("jo", "moved to", personal_graph.add_entity("Denver", "place"), at=T0)
    sentences = graph_sentences(personal_graph, ["jo"])
    assert "Jo lives in Denver." in sentences and "Jo lives in Boston." not in sentences
    history = graph_sentences(personal_graph, ["jo"], include_superseded=True)
    assert "Jo lives in Boston (no longer current)." in history


def test_expansion_terms_give_display_names(personal_graph: KnowledgeGraph) -> None:
    assert set(expansion_terms(personal_graph, ["aunt_may"])) == {"New York"}


def test_graph_bonus_rewards_seed_and_expanded_mentions(personal_graph: KnowledgeGraph) -> None:
    texts = {
        "jo": "Jo called about the party.",
        "boston": "Flights to Boston are cheap in March.",
        "both": "Jo showed me around Boston.",
        "none": "I cooked pasta.",
        "user": "I walked my dog.",
    }
    bonus = graph_bonus(personal_graph, ["jo", USER_ID], texts)
    assert bonus["jo"] == pytest.approx(1.0)
    assert 0.0 < bonus["boston"] <= 0.5
    assert bonus["both"] == pytest.approx(1.0)
    assert "none" not in bonus and "user" not in bonus
    assert all(0.0 <= value <= 1.0 for value in bonus.values())
    assert graph_bonus(personal_graph, [], texts) == {}
    assert graph_bonus(personal_graph, [USER_ID], texts) == {}
