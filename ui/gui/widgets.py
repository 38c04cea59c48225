"""Small Gradio adapters the tabs share (Gradio is handed in; nothing here imports it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.errors import DaemonError
from ui.shared.render import markdown_text


def refusal(error: DaemonError) -> str:
    """A refused action's reason for a tab's status line: marked, and Markdown-safe (it may quote the
    user's words)."""
    return f"⚠ {markdown_text(str(error))}"


def said(action: Callable[[], str]) -> str:
    """Run a user's action from a tab: its message, or the reason it was refused, never a traceback."""
    try:
        return action()
    except DaemonError as error:
        return refusal(error)


def row_picker(gr: Any) -> Callable[..., str]:
    """A select handler returning the first cell (the id) of the clicked table row.

    Gradio hands the event to a parameter annotated `gr.SelectData`; the annotation is set on the function
    object because Gradio is imported lazily, never at this module's import."""

    def pick(evt: Any) -> str:
        row = getattr(evt, "row_value", None) or []
        return str(row[0]) if row else ""

    pick.__annotations__["evt"] = gr.SelectData
    return pick


def empty_note(gr: Any, table: Any, text: str, elem_id: str) -> Any:
    """A line under `table` that says what will appear there and how, shown only while the table is empty
    (a bare row of headers tells a new user nothing)."""
    note = gr.Markdown(f"_{text}_", elem_id=elem_id, visible=True)
    table.change(lambda rows: gr.update(visible=not has_rows(rows)), [table], [note], show_progress="hidden")
    return note


def has_rows(rows: Any) -> bool:
    """Whether a table's value holds a row with anything in it (Gradio shows an empty table as one blank
    row; its value may be a list of rows or a pandas DataFrame)."""
    values = rows.values.tolist() if hasattr(rows, "values") and hasattr(rows, "columns") else rows or []
    return any(any(str(cell).strip() for cell in row) for row in values)
