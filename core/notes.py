"""What a note and a to-do are, and the port the tools and the GUI reach the notebook through (the SQLite
notebook, indexed into memory, is `memory/notes.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

NoteKind = Literal["note", "todo"]
NOTE_KINDS: tuple[NoteKind, ...] = ("note", "todo")


@dataclass(frozen=True)
class Note:
    """A note or a to-do in the user's words; a to-do is open until completed (`done_at`)."""

    id: str
    kind: NoteKind
    text: str
    created_at: float
    origin: str  # who added it: "chat" (approved from a proposal), "gui"
    done_at: float | None = None

    @property
    def done(self) -> bool:
        return self.done_at is not None

    def line(self) -> str:
        """ "[ ] call the plumber (todo_3f2a…)", "note: the wifi password is on the fridge (note_…)"."""
        if self.kind == "todo":
            return f"[{'x' if self.done else ' '}] {self.text} ({self.id})"
        return f"note: {self.text} ({self.id})"


class NoteBook(Protocol):
    """The user's notes and to-dos, as the tools and the GUI use them."""

    def add(self, kind: NoteKind, text: str, *, origin: str) -> Note:
        """Keep a note or an open to-do (and index it into memory)."""
        ...

    def notes(self, kind: NoteKind | None = None, *, include_done: bool = False) -> list[Note]:
        """Newest first; open to-dos only unless `include_done`."""
        ...

    def complete(self, note_id: str) -> Note:
        """Mark a to-do done (kept: nothing the user wrote is deleted); UserInputError if unknown."""
        ...

    def search(self, query: str, limit: int = 10) -> list[Note]:
        """Notes and to-dos holding every word of `query` (case-insensitive), newest first."""
        ...
