"""The Graph tab's picture without a browser: which entities it shows (depth, cap, current relations only),
that the same graph always gives the same picture, that no label can become markup or a template, and what
the tab says for an empty graph or an unknown name."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest

from knowledge.graph import KnowledgeGraph
from ui.gui.graph_tab import EMPTY, graph_page, resolve
from ui.gui.graph_view import escape, layout, neighbourhood, relation_rows, render_svg, suggestions

T0 = 1_700_000_000.0
EVIL = '<script>alert("x")</script> ${alert(1)} {{constructor}} `x` <img src=http://203.0.113.9/p.png>'


def family(order: int = 1) -> KnowledgeGraph:
    """user - sister Anna - lives in Lisbon - in Portugal; user works at Acme; `order` reverses insertion."""
    graph = KnowledgeGraph(clock=lambda: T0)
    user = graph.ensure_user()
    rows = [
        ("Anna", "person", user, "sister_of", "t-1"),
        ("Acme", "organization", user, "works_at", "t-2"),
    ]
    for name, kind, _user, _relation, _source in rows[::order]:
        graph.add_entity(name, kind)
    graph.add_entity("Lisbon", "place")
    graph.add_entity("Portugal", "place")
    graph.add_relation("anna", "sister_of", user, fact_id="t-1")
    graph.add_relation(user, "works_at", "acme", fact_id="t-2")
    graph.add_relation("anna", "lives_in", "lisbon", fact_id="doc:notes.md")
    graph.add_relation("lisbon", "located_in", "portugal")
    return graph


def test_depth_one_shows_direct_neighbours_and_depth_two_their_neighbours() -> None:
    graph = family()
    one = neighbourhood(graph, "user", depth=1)
    assert {n.id for n in one.nodes} == {"user", "anna", "acme"}
    two = neighbourhood(graph, "user", depth=2)
    assert {n.id for n in two.nodes} == {"user", "anna", "acme", "lisbon"}
    assert {n.id: n.hops for n in two.nodes}["lisbon"] == 2
    assert neighbourhood(graph, "user", depth=9).nodes == two.nodes  # at most two hops
    # every edge drawn joins two drawn nodes
    ids = {n.id for n in two.nodes}
    assert all(e.source in ids and e.target in ids for e in two.edges)
    assert ("lisbon", "portugal") not in {(e.source, e.target) for e in two.edges}


def test_the_cap_keeps_the_centre_and_the_nearest_most_mentioned() -> None:
    graph = KnowledgeGraph(clock=lambda: T0)
    hub = graph.add_entity("Hub", "project")
    for i in range(12):
        friend = graph.add_entity(f"Friend {i:02d}", "person")
        for _ in range(i):  # Friend 11 is the most mentioned
            graph.add_entity(f"Friend {i:02d}", "person")
        graph.add_relation(hub, "related_to", friend)
    view = neighbourhood(graph, hub, depth=2, max_nodes=4)
    assert [n.id for n in view.nodes] == ["hub", "friend_11", "friend_10", "friend_09"]
    assert view.left_out == 9
    assert len(view.edges) == 3
    assert len(neighbourhood(graph, hub, max_nodes=0).nodes) == 1  # the centre, always


def test_superseded_relations_are_not_drawn() -> None:
    graph = family()
    graph.add_entity("Globex", "organization")
    graph.add_relation("user", "works_at", "globex", at=T0 + 10)  # supersedes Acme
    view = neighbourhood(graph, "user")
    relations = {(e.target, e.relation) for e in view.edges if e.source == "user"}
    assert relations == {("globex", "works_at")}
    assert "acme" not in {n.id for n in view.nodes}


def test_the_same_graph_gives_the_same_picture_whatever_the_insertion_order() -> None:
    first = render_svg(neighbourhood(family(), "user", depth=2))
    again = render_svg(neighbourhood(family(), "user", depth=2))
    reordered = render_svg(neighbourhood(family(order=-1), "user", depth=2))
    assert first == again == reordered
    positions = layout(neighbourhood(family(), "user", depth=2))
    assert positions["user"] == (360.0, 240.0)  # the centre in the middle
    assert all(0 <= x <= 720 and 0 <= y <= 480 for x, y in positions.values())
    assert len(set(positions.values())) == len(positions)


def test_labels_are_escaped_and_inert_for_templates() -> None:
    graph = family()
    evil = graph.add_entity(EVIL, "person")
    graph.add_relation("user", "friend_of", evil, fact_id='"><script>x</script>')
    view = neighbourhood(graph, "user")
    svg = render_svg(view)
    ElementTree.fromstring(svg.replace("&nbsp;", " "))  # well-formed: no label closed a tag
    assert "<script" not in svg and "<img" not in svg
    assert "${" not in svg and "{{" not in svg and "`" not in svg
    assert "&lt;script&gt;" in svg
    names = re.findall(r"<title>(.*?)</title>", svg)
    assert any("alert" in name for name in names)
    assert escape('a"b') == "a&quot;b"
    page = graph_page(graph, evil, 1, 25)
    assert "<script" not in page.picture and "${" not in page.picture
    assert "<script" not in page.info  # the Markdown line escapes its markup too


def test_relation_rows_name_both_ends_and_the_source() -> None:
    view = neighbourhood(family(), "anna")
    rows = relation_rows(view)
    assert ["Anna", "lives in", "Lisbon", "0.80", "2023-11-14", "doc:notes.md"] in rows
    assert ["Anna", "sister of", "you", "0.80", "2023-11-14", "t-1"] in rows


def test_the_search_box_resolves_names_aliases_and_partial_text() -> None:
    graph = family()
    graph.add_alias("lisbon", "Lisboa")
    assert resolve(graph, "Lisboa") == "lisbon"
    assert resolve(graph, "anna") == "anna"
    assert resolve(graph, "port") == "portugal"
    assert resolve(graph, "") == "user"  # nothing typed: the user, who is linked
    assert resolve(graph, "nobody at all") is None
    assert suggestions(graph, "a")[0] == ("Acme (organization)", "acme")  # names starting with it first


def test_an_empty_graph_and_an_unknown_name_say_so() -> None:
    empty = graph_page(KnowledgeGraph(), None, 1, 25)
    assert empty.info == EMPTY and empty.picture == "" and empty.rows == []
    unknown = graph_page(family(), "Zanzibar", 1, 25)
    assert unknown.picture == "" and "No entity matches" in unknown.info and unknown.centre is None
    with pytest.raises(KeyError):
        neighbourhood(family(), "zanzibar")


def test_the_page_centres_where_asked_and_counts_what_the_cap_left_out() -> None:
    page = graph_page(family(), "Lisbon", 2, 2)
    assert page.centre == "lisbon"
    assert page.picture.count('class="kg-node') == 2
    assert 'data-entity="lisbon"' in page.picture and "kg-centre" in page.picture
    assert "raise the cap" in page.info
    assert ("Lisbon (place)", "lisbon") in page.choices
