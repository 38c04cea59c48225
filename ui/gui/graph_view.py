"""The Graph tab's picture, free of Gradio: one entity's neighbourhood, laid out and drawn as inline SVG.

`neighbourhood` takes the entities within `depth` hops of a centre (current relations only, at most
`max_nodes`, the best-known first), `layout` places them with networkx's spring layout on a fixed seed (the
same graph always gives the same picture), and `render_svg` draws it. Every label is user or document text:
it is escaped for HTML and for the template engines a page may run over the markup, and nothing in the
picture loads anything (no CDN, no script, no external reference). A node carries its entity id in
`data-entity`, which the tab's click handler reads; the id is checked against the graph before use.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from core.relations import USER_ID
from knowledge.graph import Edge, KnowledgeGraph

SEED = 7  # the layout's seed: a picture is a function of the graph alone
WIDTH, HEIGHT, MARGIN = 720, 480, 70
TYPE_COLOURS: Mapping[str, str] = {
    "person": "#4e79a7",
    "pet": "#b07aa1",
    "place": "#59a14f",
    "organization": "#f28e2b",
    "project": "#edc948",
    "event": "#e15759",
    "thing": "#9c755f",
    "concept": "#76b7b2",
    "other": "#bab0ac",
}
CENTRE_COLOUR = "#d62728"
_TEMPLATE_CHARS = str.maketrans({"{": "&#123;", "}": "&#125;", "$": "&#36;", "`": "&#96;"})


def escape(text: object) -> str:
    """`text` safe inside HTML/SVG text and quoted attributes, and inert for a page's template engine
    (Gradio's HTML component runs its own template over the markup: `${…}` and `{{…}}` stay literal)."""
    return html.escape(str(text), quote=True).translate(_TEMPLATE_CHARS)


@dataclass(frozen=True)
class ViewNode:
    """One entity in the picture; `hops` from the centre (0: the centre itself)."""

    id: str
    name: str
    type: str
    hops: int


@dataclass(frozen=True)
class ViewEdge:
    """One current relation between two pictured entities, with where it came from (fact/turn ids)."""

    source: str
    target: str
    relation: str
    truth: float
    sources: tuple[str, ...]
    since: float


@dataclass(frozen=True)
class GraphView:
    """The part of the graph to draw. `left_out` counts the entities within reach that the cap dropped."""

    centre: str
    nodes: tuple[ViewNode, ...]
    edges: tuple[ViewEdge, ...]
    left_out: int = 0

    def node(self, entity_id: str) -> ViewNode | None:
        """The pictured node with this id, or None."""
        return next((n for n in self.nodes if n.id == entity_id), None)


def _rank(graph: KnowledgeGraph, entity_id: str) -> tuple[int, str]:
    """Order of preference when the cap bites: the most mentioned first, then by id (deterministic)."""
    entity = graph.entity(entity_id)
    return (-(entity.mentions if entity else 0), entity_id)


def _reach(graph: KnowledgeGraph, centre: str, depth: int) -> list[tuple[str, int]]:
    """(entity id, hops) within `depth` hops of `centre`, nearest first, then by preference."""
    found = {centre: 0}
    frontier = [centre]
    for hops in range(1, depth + 1):
        ring = {n for entity in frontier for n in graph.neighbors(entity)} - found.keys()
        frontier = sorted(ring, key=lambda n: _rank(graph, n))
        found.update((n, hops) for n in frontier)
    return sorted(found.items(), key=lambda item: (item[1], *_rank(graph, item[0])))


def neighbourhood(graph: KnowledgeGraph, centre: str, *, depth: int = 1, max_nodes: int = 25) -> GraphView:
    """The entities within `depth` (1–2) hops of `centre` and the current relations among them, at most
    `max_nodes` entities (the centre always; then the nearest, most mentioned). KeyError: no such entity."""
    if centre not in graph:
        raise KeyError(f"unknown entity {centre!r}")
    depth = min(max(int(depth), 1), 2)
    reached = _reach(graph, centre, depth)
    kept = reached[: max(int(max_nodes), 1)]
    nodes = tuple(_node(graph, entity_id, hops) for entity_id, hops in kept)
    ids = {node.id for node in nodes}
    edges = {
        (e.source, e.target, e.key): _view_edge(e)
        for entity_id in sorted(ids)
        for e in graph.edges_of(entity_id)
        if e.source in ids and e.target in ids and e.source != e.target
    }
    ordered = tuple(edges[key] for key in sorted(edges))
    return GraphView(centre, nodes, ordered, left_out=len(reached) - len(kept))


def shown_name(entity_id: str, name: str) -> str:
    """An entity's name on the page: the user is "you" (the graph's own name for them is for prompts)."""
    return "you" if entity_id == USER_ID else name


def _node(graph: KnowledgeGraph, entity_id: str, hops: int) -> ViewNode:
    entity = graph.entity(entity_id)
    name = shown_name(entity_id, entity.name if entity else entity_id)
    return ViewNode(entity_id, name, entity.type if entity else "other", hops)


def _view_edge(edge: Edge) -> ViewEdge:
    return ViewEdge(edge.source, edge.target, edge.relation, edge.truth, edge.fact_ids, edge.valid_from)


def suggestions(graph: KnowledgeGraph, query: str, limit: int = 20) -> list[tuple[str, str]]:
    """(label, entity id) for entities whose name or alias contains `query` (all when empty), the most
    mentioned first; the label shows the type, so two entities of one name can be told apart."""
    needle = " ".join(query.lower().split())
    matches = [
        e
        for e in graph.entities()
        if not needle or any(needle in name.lower() for name in (e.name, *e.aliases, e.id))
    ]
    matches.sort(key=lambda e: (not e.name.lower().startswith(needle), -e.mentions, e.id))
    return [(f"{shown_name(e.id, e.name)} ({e.type})", e.id) for e in matches[:limit]]


def layout(view: GraphView) -> dict[str, tuple[float, float]]:
    """Pixel positions for the view's nodes: a spring layout on a fixed seed, the centre in the middle."""
    import networkx as nx  # lazily: the GUI imports this module at start

    shape = nx.Graph()
    shape.add_nodes_from(sorted(node.id for node in view.nodes))
    shape.add_edges_from(sorted((e.source, e.target) for e in view.edges))
    if len(view.nodes) == 1:
        return {view.centre: (WIDTH / 2, HEIGHT / 2)}
    spread = 1.6 / math.sqrt(len(view.nodes))
    raw = nx.spring_layout(shape, seed=SEED, k=spread, iterations=80)
    cx, cy = raw[view.centre]
    reach = max(max(abs(x - cx), abs(y - cy)) for x, y in raw.values()) or 1.0
    half_w, half_h = WIDTH / 2 - MARGIN, HEIGHT / 2 - MARGIN
    return {
        node: (
            round(WIDTH / 2 + (x - cx) / reach * half_w, 1),
            round(HEIGHT / 2 + (y - cy) / reach * half_h, 1),
        )
        for node, (x, y) in raw.items()
    }


def render_svg(view: GraphView, positions: Mapping[str, tuple[float, float]] | None = None) -> str:
    """The picture as one inline `<svg>`: edges with their relation names, then nodes coloured by type
    (the centre ringed), each node a `data-entity` target. Every label is escaped."""
    pos = positions if positions is not None else layout(view)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" '
        f'role="img" aria-label="{escape("Relations around " + _name(view, view.centre))}" class="kg">',
        "<defs><marker id='kg-arrow' viewBox='0 0 10 10' refX='22' refY='5' markerWidth='7' "
        "markerHeight='7' orient='auto-start-reverse'><path d='M0,0 L10,5 L0,10 z' fill='#888'/>"
        "</marker></defs>",
    ]
    parts += [_edge_svg(edge, pos) for edge in view.edges]
    parts += [_node_svg(node, pos[node.id], node.id == view.centre) for node in view.nodes]
    parts.append("</svg>")
    return "".join(parts)


def _name(view: GraphView, entity_id: str) -> str:
    node = view.node(entity_id)
    return node.name if node else entity_id


def _edge_svg(edge: ViewEdge, pos: Mapping[str, tuple[float, float]]) -> str:
    (x1, y1), (x2, y2) = pos[edge.source], pos[edge.target]
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    label = escape(edge.relation.replace("_", " "))
    return (
        f'<g class="kg-edge"><line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#999" '
        f'stroke-width="{1 + 2 * edge.truth:.1f}" marker-end="url(#kg-arrow)"/>'
        f'<text x="{mx:.1f}" y="{my - 4:.1f}" font-size="11" fill="#666" text-anchor="middle">{label}'
        "</text></g>"
    )


def _node_svg(node: ViewNode, xy: tuple[float, float], centre: bool) -> str:
    x, y = xy
    fill = TYPE_COLOURS.get(node.type, TYPE_COLOURS["other"])
    ring = f' stroke="{CENTRE_COLOUR}" stroke-width="4"' if centre else ' stroke="#fff" stroke-width="1.5"'
    radius = 18 if centre else 13
    name = escape(_short(node.name))
    return (
        f'<g class="kg-node{" kg-centre" if centre else ""}" data-entity="{escape(node.id)}" '
        f'role="button" tabindex="0" style="cursor:pointer">'
        f"<title>{escape(node.name)} ({escape(node.type)})</title>"
        f'<circle cx="{x}" cy="{y}" r="{radius}" fill="{fill}"{ring}/>'
        f'<text x="{x}" y="{y + radius + 14:.1f}" font-size="13" text-anchor="middle" '
        f'font-weight="{"bold" if centre else "normal"}">{name}</text></g>'
    )


def _short(text: str, limit: int = 28) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def relation_rows(view: GraphView) -> list[list[str]]:
    """The relations beside the picture: subject, relation, object, truth, since (UTC date), source."""
    rows = []
    for edge in view.edges:
        since = datetime.fromtimestamp(edge.since, UTC).strftime("%Y-%m-%d") if edge.since else ""
        rows.append(
            [
                _name(view, edge.source),
                edge.relation.replace("_", " "),
                _name(view, edge.target),
                f"{edge.truth:.2f}",
                since,
                ", ".join(edge.sources) or "—",
            ]
        )
    return rows


def legend(types: Iterable[str]) -> str:
    """A colour key for the types in the picture (HTML, escaped)."""
    chips = [
        f'<span class="kg-key"><span style="display:inline-block;width:10px;height:10px;border-radius:50%;'
        f'background:{TYPE_COLOURS.get(t, TYPE_COLOURS["other"])}"></span> {escape(t)}</span>'
        for t in sorted(set(types))
    ]
    return " &nbsp; ".join(chips)
