"""The Notes tab: to-dos and notes in the user's words, added here or approved from the chat, searched, and
to-dos marked done (kept, shown again with "show done")."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from core.errors import UserInputError
from core.notes import Note, NoteKind
from ui.gui.widgets import row_picker, said
from ui.shared.render import markdown_text

if TYPE_CHECKING:
    from memory.notes import NoteStore

NOTE_HEADERS = ["id", "kind", "text", "added", "done"]
KINDS: dict[str, NoteKind] = {"To-do": "todo", "Note": "note"}


def note_rows(book: NoteStore, query: str = "", show_done: bool = False) -> list[list[str]]:
    """To-dos and notes, newest first; only those holding `query`'s words when it is given."""
    found = book.search(query, limit=200) if query.strip() else book.notes(include_done=True)
    shown = [n for n in found if show_done or not n.done]
    return [_row(n) for n in shown]


def _row(note: Note) -> list[str]:
    done = time.strftime("%Y-%m-%d", time.localtime(note.done_at)) if note.done_at else ""
    kind = "to-do" if note.kind == "todo" else "note"
    return [note.id, kind, note.text, time.strftime("%Y-%m-%d %H:%M", time.localtime(note.created_at)), done]


def add_note(book: NoteStore, kind_label: str, text: str) -> str:
    def add() -> str:
        note = book.add(KINDS.get(kind_label, "todo"), text, origin="gui")
        return f"Added: {markdown_text(note.text)}"

    return said(add)


def complete(book: NoteStore, note_id: str) -> str:
    if not (note_id or "").strip():
        return "Click a to-do in the list first."
    return said(lambda: f"Done: {markdown_text(book.complete(note_id).text)}")


def build_notes_tab(gr: Any, book: NoteStore | None) -> dict[str, Any] | None:
    """The tab's widgets and handlers; a note when this build has no notebook."""
    if book is None:
        gr.Markdown("Notes are not available in this build.")
        return None
    c: dict[str, Any] = {}
    gr.Markdown(
        "Your to-dos and notes, kept on this computer and in Daemon's memory (a later question can find "
        "them). The chat can propose them too: “add renewing my passport to my to-dos”."
    )
    with gr.Row(equal_height=True):
        c["kind"] = gr.Radio(list(KINDS), value="To-do", label="Kind", elem_id="note-kind", scale=1)
        c["text"] = gr.Textbox(label="Text", elem_id="note-text", scale=3)
        c["add"] = gr.Button("Add", elem_id="note-add", variant="primary", scale=0, min_width=90)
    c["status"] = gr.Markdown("", elem_id="note-status")
    with gr.Row(equal_height=True):
        c["query"] = gr.Textbox(label="Search (empty: everything)", elem_id="note-query", scale=3)
        c["show_done"] = gr.Checkbox(label="show done to-dos", elem_id="note-show-done", scale=1)
        c["search"] = gr.Button("Search", elem_id="note-search", scale=0, min_width=90)
    c["notes"] = gr.Dataframe(headers=NOTE_HEADERS, elem_id="note-list", interactive=False, wrap=True)
    with gr.Row(equal_height=True):
        c["picked"] = gr.Textbox(
            label="To-do (click a row)", elem_id="note-picked", interactive=False, scale=3
        )
        c["done"] = gr.Button("Mark done", elem_id="note-done", scale=0, min_width=110)
    listed = [c["query"], c["show_done"]]

    def add(kind: str, text: str, query: str, show_done: bool) -> tuple[str, list[list[str]]]:
        return add_note(book, kind, text), note_rows(book, query, show_done)

    def mark(note_id: str, query: str, show_done: bool) -> tuple[str, list[list[str]]]:
        return complete(book, note_id), note_rows(book, query, show_done)

    def listing(query: str, show_done: bool) -> tuple[str, list[list[str]]]:
        try:
            return "", note_rows(book, query, show_done)
        except UserInputError as problem:
            return markdown_text(str(problem)), []

    c["add"].click(add, [c["kind"], c["text"], *listed], [c["status"], c["notes"]])
    c["search"].click(listing, listed, [c["status"], c["notes"]])
    c["show_done"].change(listing, listed, [c["status"], c["notes"]])
    c["notes"].select(row_picker(gr), None, c["picked"])
    c["done"].click(mark, [c["picked"], *listed], [c["status"], c["notes"]])
    c["reload"] = lambda: note_rows(book)
    c["reload_outputs"] = [c["notes"]]
    return c
