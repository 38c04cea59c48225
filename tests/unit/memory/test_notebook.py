"""The notebook: notes and to-dos kept in SQLite and indexed into memory as the user's own notes;
to-dos completed (kept), searched by their words; a note that failed to index is indexed at the next open."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.clocks import SettableClock
from core.errors import UserInputError
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.notes import NOTES_COLLECTION, NOTES_FILE, NoteStore, record_id
from memory.provenance import provenance
from memory.service import MemoryService
from tests.unit.memory.profile_helpers import committed_profiles


@pytest.fixture
def memory() -> MemoryService:
    service = MemoryService(InMemoryStore(HashingEmbedder(64)), committed_profiles())
    service.open()
    return service


def test_a_todo_is_kept_indexed_as_your_note_and_completed_not_deleted(
    tmp_path: Path, memory: MemoryService
) -> None:
    clock = SettableClock(1_800_000_000.0)
    book = NoteStore(tmp_path / NOTES_FILE, memory, clock=clock)
    todo = book.add("todo", "  renew the   passport ", origin="gui")
    assert todo.text == "renew the passport" and not todo.done
    (record,) = memory.store.get(NOTES_COLLECTION, [record_id(todo)])
    assert record.text == "renew the passport"
    assert provenance(NOTES_COLLECTION, record.metadata) == "note"
    clock.now += 60
    done = book.complete(todo.id)
    assert done.done_at == clock.now
    assert book.notes("todo") == [] and book.notes("todo", include_done=True) == [done]
    (record,) = memory.store.get(NOTES_COLLECTION, [record_id(todo)])
    assert record.metadata["section"] == "to-do (done)"


def test_search_finds_every_word_and_a_note_is_not_a_todo(tmp_path: Path, memory: MemoryService) -> None:
    book = NoteStore(tmp_path / NOTES_FILE, memory)
    key = book.add("note", "The spare key is with Maya", origin="chat")
    book.add("todo", "Ask Maya about the key for the shed", origin="chat")
    book.add("note", "Wifi password is on the fridge", origin="chat")
    assert [n.text for n in book.search("spare KEY")] == [key.text]
    assert len(book.search("maya key")) == 2
    with pytest.raises(UserInputError, match="is a note, not a to-do"):
        book.complete(key.id)
    with pytest.raises(UserInputError, match="no note or to-do"):
        book.complete("todo_nope")
    with pytest.raises(UserInputError, match="needs some words"):
        book.add("todo", "   ", origin="gui")


def test_a_note_that_failed_to_index_is_indexed_at_the_next_open(
    tmp_path: Path, memory: MemoryService
) -> None:
    book = NoteStore(tmp_path / NOTES_FILE, None)  # as if memory had refused it
    note = book.add("note", "the boiler was serviced in March", origin="gui")
    book.close()
    assert memory.store.get(NOTES_COLLECTION, [record_id(note)]) == []
    NoteStore(tmp_path / NOTES_FILE, memory).close()
    assert [r.text for r in memory.store.get(NOTES_COLLECTION, [record_id(note)])] == [note.text]
