"""The notebook: notes and to-dos in `notes.sqlite3` (WAL, synchronous=FULL), each also indexed into memory's
`obsidian_notes` collection (the prompt's personal notes), marked as the user's own note.

The SQLite row is the note; the memory record is how a later turn finds it by meaning. A record is written
after its row commits; one that failed to index (the memory store busy) is indexed again at the next open,
so the two never disagree for long. Completing a to-do updates both; nothing is deleted here.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.errors import UserInputError
from core.notes import NOTE_KINDS, Note, NoteKind
from core.sqlite_db import DurableDB, Migration
from memory.provenance import NOTE_SOURCE
from memory.service import MemoryService
from memory.vector_store import Record

logger = logging.getLogger(__name__)
NOTES_FILE = "notes.sqlite3"
NOTES_COLLECTION = "obsidian_notes"  # the user's own notes: the prompt's "personal notes" section reads it
NOTE_MIGRATIONS: tuple[Migration, ...] = (
    (
        "notes_001",
        """
        CREATE TABLE notes (
            id TEXT PRIMARY KEY, kind TEXT NOT NULL, text TEXT NOT NULL, created_at REAL NOT NULL,
            origin TEXT NOT NULL, done_at REAL, indexed INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX notes_by_kind ON notes (kind, created_at)
        """,
    ),
)
_COLUMNS = "id, kind, text, created_at, origin, done_at"
_MAX_TEXT = 4000
_LABELS = {"note": "Note", "todo": "To-do"}


class NoteStore:
    """The notebook (`core.notes.NoteBook`); `memory` indexes each note (None: the notebook alone)."""

    def __init__(
        self, path: Path, memory: MemoryService | None, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._db = DurableDB(path, NOTE_MIGRATIONS, what="notebook")
        self._memory = memory
        self._clock = clock
        self._index_missing()

    def add(self, kind: NoteKind, text: str, *, origin: str) -> Note:
        if kind not in NOTE_KINDS:
            raise UserInputError(f"a note's kind is one of {', '.join(NOTE_KINDS)}, not {kind!r}")
        text = " ".join(text.split())
        if not text:
            raise UserInputError(f"a {_LABELS[kind].lower()} needs some words")
        if len(text) > _MAX_TEXT:
            raise UserInputError(f"a {_LABELS[kind].lower()} is at most {_MAX_TEXT} characters")
        note = Note(f"{kind}_{uuid.uuid4().hex[:10]}", kind, text, self._clock(), origin)
        with self._db.write() as db:
            db.execute(
                f"INSERT INTO notes ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                (note.id, note.kind, note.text, note.created_at, note.origin, None),
            )
        self._index([note])
        return note

    def notes(self, kind: NoteKind | None = None, *, include_done: bool = False) -> list[Note]:
        where, params = ["1 = 1"], []
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        if not include_done:
            where.append("done_at IS NULL")
        return self._select(f"WHERE {' AND '.join(where)} ORDER BY created_at DESC", params)

    def get(self, note_id: str) -> Note:
        found = self._select("WHERE id = ?", [note_id.strip()])
        if not found:
            raise UserInputError(f"no note or to-do {note_id!r}")
        return found[0]

    def complete(self, note_id: str) -> Note:
        note = self.get(note_id)
        if note.kind != "todo":
            raise UserInputError(f"{note.id} is a note, not a to-do: only to-dos are completed")
        if note.done:
            return note
        with self._db.write() as db:
            db.execute("UPDATE notes SET done_at = ? WHERE id = ?", (self._clock(), note.id))
        done = self.get(note.id)
        if self._memory is not None:
            self._memory.update_metadata(NOTES_COLLECTION, {record_id(done): {"section": "to-do (done)"}})
        return done

    def search(self, query: str, limit: int = 10) -> list[Note]:
        words = re.findall(r"\w+", query.casefold())
        if not words:
            raise UserInputError("say what to look for in your notes")
        clauses = " AND ".join("lower(text) LIKE ?" for _ in words)
        params: list[Any] = [f"%{word}%" for word in words]
        return self._select(f"WHERE {clauses} ORDER BY created_at DESC LIMIT {int(limit)}", params)

    def _select(self, tail: str, params: list[Any]) -> list[Note]:
        rows = self._db.rows(f"SELECT {_COLUMNS} FROM notes {tail}", params)
        return [Note(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows]

    def _index(self, notes: list[Note]) -> None:
        """Index into memory, then mark indexed; a failure is logged and retried at the next open."""
        if self._memory is None or not notes:
            return
        try:
            self._memory.add(NOTES_COLLECTION, [memory_record(n) for n in notes])
        except Exception:  # noqa: BLE001 - the note is kept; indexing is retried at the next start
            logger.exception("could not index %d note(s) into memory; retried at the next start", len(notes))
            return
        with self._db.write() as db:
            db.executemany("UPDATE notes SET indexed = 1 WHERE id = ?", [(n.id,) for n in notes])

    def _index_missing(self) -> None:
        if self._memory is not None:
            self._index(self._select("WHERE indexed = 0", []))

    def close(self) -> None:
        self._db.close()


def record_id(note: Note) -> str:
    """The memory record of a note (its own id: one record per note)."""
    return f"note_{note.id}"


def memory_record(note: Note) -> Record:
    """A note as memory holds it: its words, marked as the user's note (`source`), its kind as the section."""
    section = "to-do" if note.kind == "todo" else "note"
    return Record(
        record_id(note),
        note.text,
        {
            "created_at": note.created_at,
            "source": NOTE_SOURCE,
            "external_id": note.id,
            "file_path": f"daemon-notes/{note.id}",
            "title": _LABELS[note.kind],
            "section": section,
        },
    )
