"""The agent's tools over the user's notebook: `add_todo` and `add_note` (proposed: the user approves),
`complete_todo` (proposed too), `list_todos` and `search_notes` (read only, on this machine)."""

from __future__ import annotations

from typing import Any

from core.errors import ToolRetry, UserInputError
from core.notes import Note, NoteBook
from core.tools.base import Tool

NOTE_TOOL_NAMES = frozenset({"add_note", "add_todo", "complete_todo", "list_todos", "search_notes"})
NOTE_READING_TOOLS = frozenset({"list_todos", "search_notes"})  # their output is the user's private text
NOTE_HINT = (
    r"\b(notes?|to-?dos?|to do list|task list|jot|write (?:that|this|it) down|tick|done with|finished)\b"
)


def note_tools(book: NoteBook) -> tuple[Tool, ...]:
    """The notebook tools over `book`."""

    def words(arguments: dict[str, Any]) -> str:
        text = " ".join(str(arguments.get("text", "")).split())
        if not text:
            raise ToolRetry("say what to write down (`text`)")
        return text

    def add_note(text: str) -> str:
        """Keep a note for the user, in their words (they approve it first).

        Args:
            text: the note, e.g. "the spare key is with Maya".
        """
        note = book.add("note", words({"text": text}), origin="chat")
        return f"Note {note.id} kept: {note.text}"

    def add_todo(text: str) -> str:
        """Add a to-do to the user's list (they approve it first).

        Args:
            text: what to do, e.g. "renew the passport".
        """
        todo = book.add("todo", words({"text": text}), origin="chat")
        return f"To-do {todo.id} added: {todo.text}"

    def open_todo(arguments: dict[str, Any]) -> Note:
        wanted = str(arguments.get("todo_id", "")).strip()
        found = next((n for n in book.notes("todo") if n.id == wanted), None)
        if found is None:
            raise ToolRetry(f"no open to-do {wanted!r}; list_todos shows their ids")
        return found

    def complete_todo(todo_id: str) -> str:
        """Mark one of the user's to-dos done (they approve it first).

        Args:
            todo_id: the to-do's id, as list_todos shows it.
        """
        done = book.complete(open_todo({"todo_id": todo_id}).id)
        return f"Done: {done.text}"

    def list_todos(include_done: bool = False) -> str:
        """List the user's open to-dos with their ids (and the done ones with include_done)."""
        todos = book.notes("todo", include_done=include_done)
        return "\n".join(t.line() for t in todos) if todos else "The to-do list is empty."

    def search_notes(query: str) -> str:
        """Find the user's notes and to-dos holding these words.

        Args:
            query: words the note holds, e.g. "spare key".
        """
        try:
            found = book.search(query)
        except UserInputError as unusable:
            raise ToolRetry(str(unusable)) from None
        return "\n".join(n.line() for n in found) if found else f"No note holds {query!r}."

    return (
        Tool.from_function(
            add_note, use_when=NOTE_HINT, side_effects=True, preview=lambda a: f"Keep a note: {words(a)}"
        ),
        Tool.from_function(
            add_todo, use_when=NOTE_HINT, side_effects=True, preview=lambda a: f"Add a to-do: {words(a)}"
        ),
        Tool.from_function(
            complete_todo,
            use_when=NOTE_HINT,
            side_effects=True,
            preview=lambda a: f"Mark done: {open_todo(a).text}",
        ),
        Tool.from_function(list_todos, use_when=NOTE_HINT),
        Tool.from_function(search_notes, use_when=NOTE_HINT),
    )
