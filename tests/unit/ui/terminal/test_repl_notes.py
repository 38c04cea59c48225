"""A to-do proposed in the terminal chat is added only on an explicit yes; completing one is proposed too."""

from __future__ import annotations

from pathlib import Path

from core.providers.fake import text_response, tool_response
from core.tools.note_tools import note_tools
from core.types import ToolCall
from memory.notes import NOTES_FILE, NoteStore
from tests.unit.ui.terminal.agent_chat import chat_with_tools


def test_a_proposed_todo_is_added_only_when_approved(tmp_path: Path) -> None:
    book = NoteStore(tmp_path / NOTES_FILE, None)
    add = ToolCall("c1", "add_todo", {"text": "renew the passport"})
    again = ToolCall("c2", "add_todo", {"text": "renew the passport"})
    steps = [tool_response(add), text_response("Shall I?"), tool_response(again), text_response("Proposed.")]
    out, provider = chat_with_tools(
        note_tools(book), steps, ["put my passport on the to-do list", "n", "to-do list please", "y", "/quit"]
    )
    provider.assert_complete()
    assert out.count("Run Add a to-do: renew the passport? [y/N]") == 2
    assert "not run" in out and "[add_todo ok] To-do todo_" in out
    assert [t.text for t in book.notes("todo")] == ["renew the passport"]  # once: the first was declined


def test_completing_a_todo_is_proposed_with_its_words_and_an_unknown_id_goes_back_to_the_model(
    tmp_path: Path,
) -> None:
    book = NoteStore(tmp_path / NOTES_FILE, None)
    todo = book.add("todo", "call the plumber", origin="gui")
    wrong = ToolCall("c1", "complete_todo", {"todo_id": "todo_nope"})
    right = ToolCall("c2", "complete_todo", {"todo_id": todo.id})
    steps = [tool_response(wrong), tool_response(right), text_response("Marked.")]
    out, provider = chat_with_tools(
        note_tools(book), steps, ["I called the plumber, tick it off", "y", "/quit"]
    )
    assert "no open to-do 'todo_nope'" in provider.requests[1].messages[-1].content
    assert "Run Mark done: call the plumber? [y/N]" in out
    assert book.notes("todo") == [] and book.get(todo.id).done
