"""The Graph tab: the knowledge graph around a chosen entity, as a picture and a list of relations.

The user picks an entity (a search box with suggestions), a depth (1–2 hops) and a cap on entities;
clicking a node in the picture recentres on it. The picture is inline SVG drawn by `ui.gui.graph_view`
(nothing fetched, every label escaped); the click reaches the server as a Gradio event carrying the node's
entity id, which is looked up in the graph before use. The graph is read under the knowledge service's lock.

Gradio is handed in (`gr`) by `ui.gui.app.build_app`, which imports it lazily.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from core.relations import USER_ID
from knowledge.graph import KnowledgeGraph
from ui.gui.graph_view import (
    GraphView,
    layout,
    legend,
    neighbourhood,
    relation_rows,
    render_svg,
    shown_name,
    suggestions,
)
from ui.shared.render import markdown_text

T = TypeVar("T")
RELATION_HEADERS = ["subject", "relation", "object", "truth", "since", "source"]
EMPTY = (
    '**The knowledge graph is empty.** It grows as you chat: facts you state ("my sister Anna lives in '
    'Lisbon") become people, places and the relations between them, and syncing an Obsidian vault adds '
    "its notes' links. Come back after a conversation."
)
NO_GRAPH = "The knowledge graph is not available in this GUI (started without memory)."
# The one script on the tab: a click on a node sends its entity id as the picture's click event.
ON_CLICK = (
    "element.addEventListener('click', (event) => {"
    " const node = event.target.closest('[data-entity]');"
    " if (node) { trigger('click', {entity: node.getAttribute('data-entity')}); } });"
)
DEFAULT_DEPTH, DEFAULT_CAP, MAX_CAP = 1, 25, 80
SUGGESTION_LIMIT = 200


class GraphReader(Protocol):
    """What the tab needs of `knowledge.service.KnowledgeService`: run a function on the graph, locked."""

    def edit(self, change: Callable[[KnowledgeGraph], T]) -> T: ...


@dataclass(frozen=True)
class GraphPage:
    """What the tab shows: the picture (HTML), a line above it, the relation rows, the search choices and
    the entity now in the centre (the search box's value)."""

    picture: str
    info: str
    rows: list[list[str]]
    choices: list[tuple[str, str]]
    centre: str | None


def resolve(graph: KnowledgeGraph, wanted: str | None) -> str | None:
    """The entity meant by the search box: an id, a name or alias, or the best suggestion for the text;
    with nothing typed, the user (when linked to anything), else the most mentioned entity."""
    text = (wanted or "").strip()
    if text:
        if text in graph:
            return text
        return graph.find(text) or next((eid for _, eid in suggestions(graph, text, 1)), None)
    if USER_ID in graph and graph.neighbors(USER_ID):
        return USER_ID
    return next((eid for _, eid in suggestions(graph, "", 1)), None)


@dataclass(frozen=True)
class Selection:
    """What `select` read from the graph: the view (None: nothing to draw), the search choices, a note."""

    view: GraphView | None
    choices: list[tuple[str, str]]
    note: str = ""


def select(graph: KnowledgeGraph, wanted: str | None, depth: int, cap: int) -> Selection:
    """The part of the graph to show for the entity asked for: the only step that reads the graph (the
    tab runs it under the knowledge service's lock, and lays out and draws after releasing it)."""
    if len(graph) == 0:
        return Selection(None, [], EMPTY)
    choices = suggestions(graph, "", SUGGESTION_LIMIT)
    centre = resolve(graph, wanted)
    if centre is None:
        return Selection(None, choices, f"No entity matches {_quoted(wanted)}.")
    view = neighbourhood(graph, centre, depth=depth, max_nodes=min(max(int(cap), 1), MAX_CAP))
    return Selection(view, _with(choices, view))


def page_of(selection: Selection) -> GraphPage:
    """The tab's content for a selection: the picture, the line above it and the relation rows."""
    view = selection.view
    if view is None:
        return GraphPage("", selection.note, [], selection.choices, None)
    return GraphPage(_picture(view), _info(view), relation_rows(view), selection.choices, view.centre)


def graph_page(graph: KnowledgeGraph, wanted: str | None, depth: int, cap: int) -> GraphPage:
    """The tab's content for the entity the user asked for (pure: tests call it without a browser)."""
    return page_of(select(graph, wanted, depth, cap))


def _picture(view: GraphView) -> str:
    svg = render_svg(view, layout(view))
    key = legend(node.type for node in view.nodes)
    return f'<div class="kg-wrap">{svg}<div class="kg-legend">{key}</div></div>'


def _info(view: GraphView) -> str:
    centre = view.node(view.centre)
    name = markdown_text(shown_name(centre.id, centre.name) if centre else view.centre)
    count, links = len(view.nodes) - 1, len(view.edges)
    entities = "entity" if count == 1 else "entities"
    line = f"**{name}**: {count} related {entities}, {links} relation{'' if links == 1 else 's'}"
    if view.left_out:
        line += f" ({view.left_out} more not shown: raise the cap)"
    if not view.edges:
        line += ". Nothing is linked to it yet."
    return line + ". Click a node to centre on it."


def _with(choices: list[tuple[str, str]], view: GraphView) -> list[tuple[str, str]]:
    """The suggestions, with the centre among them (so the search box can show it when it is rarely named)."""
    if any(eid == view.centre for _, eid in choices):
        return choices
    centre = view.node(view.centre)
    label = f"{shown_name(centre.id, centre.name)} ({centre.type})" if centre else view.centre
    return [(label, view.centre), *choices]


def _quoted(text: str | None) -> str:
    return "“" + markdown_text((text or "").strip()[:80]) + "”"


def build_graph_tab(gr: Any, knowledge: GraphReader | None, tab: Any) -> dict[str, Any]:
    """Lay out the Graph tab and wire it; call inside a `gr.Blocks`, in `tab` (opening it redraws)."""
    c: dict[str, Any] = {}
    with gr.Row(equal_height=True):
        c["entity"] = gr.Dropdown(
            choices=[],
            value=None,
            label="Entity",
            elem_id="graph-entity",
            allow_custom_value=True,
            filterable=True,
            scale=4,
        )
        c["depth"] = gr.Slider(
            1, 2, value=DEFAULT_DEPTH, step=1, label="Hops", elem_id="graph-depth", scale=1
        )
        c["cap"] = gr.Slider(
            2, MAX_CAP, value=DEFAULT_CAP, step=1, label="At most entities", elem_id="graph-cap", scale=2
        )
    c["info"] = gr.Markdown("", elem_id="graph-info")
    c["picture"] = gr.HTML("", elem_id="graph-picture", js_on_load=ON_CLICK, min_height=200)
    c["relations"] = gr.Dataframe(
        headers=RELATION_HEADERS,
        elem_id="graph-relations",
        interactive=False,
        wrap=True,
        max_height=480,
        column_widths=["18%", "14%", "20%", "8%", "14%", "26%"],
    )
    show = _shower(gr, knowledge)
    outputs = [c["picture"], c["info"], c["relations"], c["entity"]]
    inputs = [c["entity"], c["depth"], c["cap"]]
    c["entity"].input(show, inputs, outputs, show_progress="hidden")
    c["entity"].select(show, inputs, outputs, show_progress="hidden")
    c["depth"].release(show, inputs, outputs, show_progress="hidden")
    c["cap"].release(show, inputs, outputs, show_progress="hidden")
    c["picture"].click(_recentre(gr, show), [c["depth"], c["cap"]], outputs, show_progress="hidden")
    tab.select(show, inputs, outputs, show_progress="hidden")  # what the chat just taught shows at once
    return c


def _shower(gr: Any, knowledge: GraphReader | None) -> Callable[..., tuple[Any, ...]]:
    def show(wanted: str | None, depth: float, cap: float) -> tuple[Any, ...]:
        if knowledge is None:
            return "", NO_GRAPH, [], gr.update(choices=[])
        chosen = knowledge.edit(lambda graph: select(graph, wanted, int(depth), int(cap)))
        page = page_of(chosen)  # the layout runs outside the lock: turns read the graph meanwhile
        box = (
            gr.update(choices=page.choices, value=page.centre)
            if page.centre
            else gr.update(choices=page.choices)
        )
        return page.picture, page.info, page.rows, box

    return show


def _recentre(gr: Any, show: Callable[..., tuple[Any, ...]]) -> Callable[..., tuple[Any, ...]]:
    """The picture's click handler: the clicked node's entity id (from the event) becomes the centre."""

    def recentre(evt: Any, depth: float, cap: float) -> tuple[Any, ...]:
        entity = (getattr(evt, "_data", None) or {}).get("entity")
        if not isinstance(entity, str) or not entity:
            return gr.skip(), gr.skip(), gr.skip(), gr.skip()
        return show(entity, depth, cap)

    recentre.__annotations__["evt"] = gr.EventData
    return recentre
