"""Small Gradio adapters the tabs share (Gradio is handed in; nothing here imports it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def row_picker(gr: Any) -> Callable[..., str]:
    """A select handler returning the first cell (the id) of the clicked table row.

    Gradio hands the event to a parameter annotated `gr.SelectData`; the annotation is set on the function
    object because Gradio is imported lazily, never at this module's import."""

    def pick(evt: Any) -> str:
        row = getattr(evt, "row_value", None) or []
        return str(row[0]) if row else ""

    pick.__annotations__["evt"] = gr.SelectData
    return pick
