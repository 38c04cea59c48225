"""The Memory tab: search with score explanations, the facts (edit, remove, undo) and the review queue.

Every action goes through `ui.gui.memory_logic`, which calls the services the CLIs call.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from core.errors import DaemonError
from ui.gui import memory_logic as logic
from ui.gui.backends import GuiBackends
from ui.gui.widgets import empty_note, refusal, row_picker, said

MISSING = "Memory is not loaded in this GUI."


def build_memory_tab(gr: Any, parts: GuiBackends) -> Any:
    """Lay out and wire the tab; returns its refresh handler's trigger target (the tab's select)."""
    if parts.memory is None or parts.facts is None:
        gr.Markdown(MISSING)
        return None
    collections, intents = logic.choices()
    c: dict[str, Any] = {"undo_id": gr.State("")}
    gr.Markdown("### Search memory")
    with gr.Row(equal_height=True):
        c["query"] = gr.Textbox(elem_id="memory-query", show_label=False, placeholder="Search…", scale=5)
        c["collection"] = gr.Dropdown(collections, value=logic.ALL, show_label=False, scale=2)
        c["intent"] = gr.Dropdown(intents, value="general", show_label=False, scale=2)
        c["search"] = gr.Button("Search", elem_id="memory-search", scale=1)
    c["results"] = gr.Dataframe(
        headers=logic.SEARCH_HEADERS,
        elem_id="memory-results",
        interactive=False,
        wrap=True,
        column_widths=["4%", "12%", "8%", "34%", "10%", "20%", "12%"],
    )
    gr.Markdown("### Facts")
    with gr.Row(equal_height=True):
        c["history"] = gr.Checkbox(label="Show superseded (history)", value=False, elem_id="facts-history")
        c["refresh"] = gr.Button("Refresh", elem_id="facts-refresh", size="sm")
    c["facts"] = gr.Dataframe(headers=logic.FACT_HEADERS, elem_id="facts", interactive=False, wrap=True)
    empty_note(
        gr,
        c["facts"],
        'No facts yet. Tell Daemon about yourself in the Chat tab ("I live in Lyon", "my sister is '
        'called Jo"): what it learns shows here, and you can correct or remove it.',
        "facts-empty",
    )
    with gr.Row(equal_height=True):
        c["fact_id"] = gr.Textbox(label="Fact (click a row)", elem_id="fact-id", interactive=False, scale=3)
        c["value"] = gr.Textbox(label="New value", elem_id="fact-value", scale=3)
        c["save"] = gr.Button("Save (supersede)", elem_id="fact-save", variant="primary", scale=1)
        c["remove"] = gr.Button("Remove", elem_id="fact-remove", variant="stop", scale=1)
        c["undo"] = gr.Button("Undo remove", elem_id="fact-undo", scale=1)
    c["fact_status"] = gr.Markdown("", elem_id="fact-status")
    gr.Markdown("### Review queue (duplicates and contradictions)")
    c["review"] = gr.Dataframe(headers=logic.REVIEW_HEADERS, elem_id="review", interactive=False, wrap=True)
    empty_note(
        gr,
        c["review"],
        "Nothing to review. When two memories repeat or contradict each other, Daemon asks you here.",
        "review-empty",
    )
    with gr.Row(equal_height=True):
        c["item"] = gr.Textbox(label="Item (click a row)", elem_id="review-item", interactive=False, scale=3)
        c["approve"] = gr.Button("Approve", elem_id="review-approve", scale=1)
        c["dismiss"] = gr.Button("Dismiss", elem_id="review-dismiss", scale=1)
    c["review_status"] = gr.Markdown("", elem_id="review-status")
    _wire(gr, parts, c)
    return c


async def _guarded_async(action: Awaitable[str]) -> str:
    """`said` for an action that is awaited."""
    try:
        return await action
    except DaemonError as error:
        return refusal(error)


def _wire(gr: Any, parts: GuiBackends, c: dict[str, Any]) -> None:
    memory, facts, review, learning = parts.memory, parts.facts, parts.review, parts.learning
    assert memory is not None and facts is not None and learning is not None

    async def search(query: str, collection: str, intent: str) -> Any:
        try:
            return await logic.search_rows(memory, query, collection, intent)
        except DaemonError as error:
            gr.Warning(str(error))
            return gr.skip()

    def facts_table(show_history: bool) -> list[list[Any]]:
        return logic.fact_rows(facts, show_history)

    def review_table() -> list[list[Any]]:
        return logic.review_table(review, memory) if review is not None else []

    async def save(fact_id: str, value: str, show_history: bool) -> tuple[Any, ...]:
        try:
            message = (await logic.correct_fact(facts, learning, fact_id, value)).message
        except DaemonError as error:
            message = refusal(error)
        return message, facts_table(show_history), ""

    async def remove(fact_id: str, show_history: bool) -> tuple[Any, ...]:
        message = await _guarded_async(logic.retire_fact(facts, learning, fact_id))
        undo = fact_id if not message.startswith("⚠") else gr.skip()
        return message, facts_table(show_history), undo

    async def undo(undo_id: str, show_history: bool) -> tuple[Any, ...]:
        message = await _guarded_async(logic.restore_fact(facts, learning, undo_id))
        return message, facts_table(show_history), ""

    def decide(item: str, approve: bool) -> tuple[Any, ...]:
        if review is None:
            return "No review queue in this GUI.", []
        message = said(lambda: logic.decide_review(review, memory, facts, item, approve))
        return message, review_table()

    gr.on(
        [c["search"].click, c["query"].submit],
        search,
        [c["query"], c["collection"], c["intent"]],
        [c["results"]],
    )
    gr.on([c["refresh"].click, c["history"].change], facts_table, [c["history"]], [c["facts"]])
    c["refresh"].click(review_table, None, [c["review"]])
    c["facts"].select(row_picker(gr), None, [c["fact_id"]])
    c["review"].select(row_picker(gr), None, [c["item"]])
    c["save"].click(
        save, [c["fact_id"], c["value"], c["history"]], [c["fact_status"], c["facts"], c["value"]]
    )
    c["remove"].click(remove, [c["fact_id"], c["history"]], [c["fact_status"], c["facts"], c["undo_id"]])
    c["undo"].click(undo, [c["undo_id"], c["history"]], [c["fact_status"], c["facts"], c["undo_id"]])
    c["approve"].click(lambda item: decide(item, True), [c["item"]], [c["review_status"], c["review"]])
    c["dismiss"].click(lambda item: decide(item, False), [c["item"]], [c["review_status"], c["review"]])
    c["reload"] = lambda: (facts_table(False), review_table())
    c["reload_outputs"] = [c["facts"], c["review"]]
