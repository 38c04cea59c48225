"""The durable turn journal: SQLite in WAL mode with synchronous=FULL.

A turn is written twice: `begin_turn` commits the user's text before the model is called (a crash mid-answer
never loses what the user wrote), and `complete_turn` commits the answer before the front end shows it, so
an acknowledged turn survives `kill -9`.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from core.errors import StorageError, UserInputError
from core.ports import SessionRecord, TurnRecord
from core.sqlite_db import DurableDB

_MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "001_sessions_and_turns",
        """
        CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY,
            created_at REAL NOT NULL,
            last_active_at REAL NOT NULL
        );
        CREATE TABLE turns (
            turn_id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(session_id),
            seq INTEGER NOT NULL,
            user_text TEXT NOT NULL,
            assistant_text TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'pending',
            model TEXT NOT NULL DEFAULT '',
            usage_json TEXT NOT NULL DEFAULT '{}',
            tool_calls_json TEXT NOT NULL DEFAULT '[]',
            citations_json TEXT NOT NULL DEFAULT '[]',
            created_at REAL NOT NULL,
            completed_at REAL,
            UNIQUE (session_id, seq)
        );
        CREATE INDEX turns_by_session ON turns (session_id, seq);
        """,
    ),
    (
        "002_turn_index_state",
        # When a finished turn reached the `conversations` collection; NULL means not yet (start-up repair).
        """
        ALTER TABLE turns ADD COLUMN indexed_at REAL;
        CREATE INDEX turns_unindexed ON turns (indexed_at) WHERE indexed_at IS NULL;
        """,
    ),
)

_TURN_COLUMNS = (
    "turn_id, session_id, seq, user_text, assistant_text, status, model, usage_json, "
    "tool_calls_json, citations_json, created_at"
)
JOURNAL_FILE = "journal.sqlite3"  # in the data dir
MAX_USER_TEXT = 200_000
INTERRUPTED = "interrupted"  # a turn whose process died before answering (it was left `pending`)


class Journal:
    """SQLite-backed `ConversationLog`. Safe to call from several threads (one connection, one lock)."""

    def __init__(
        self, path: Path, clock: Callable[[], float] = time.time, *, read_only: bool = False
    ) -> None:
        """`read_only`: only read an existing journal (while another process owns the data dir)."""
        self.path = path
        self.clock = clock  # what its turns are dated by; the turn's context reads the same time
        self._db = DurableDB(path, _MIGRATIONS, what="journal", read_only=read_only)

    def close(self) -> None:
        self._db.close()

    def new_session(self) -> str:
        session_id = uuid.uuid4().hex[:16]
        now = self.clock()
        with self._db.write() as db:
            db.execute("INSERT INTO sessions VALUES (?, ?, ?)", (session_id, now, now))
        return session_id

    def begin_turn(self, session_id: str, user_text: str) -> str:
        """Commit the user's text as a pending turn and return its id."""
        if len(user_text) > MAX_USER_TEXT:
            raise UserInputError(f"message is {len(user_text)} characters; the limit is {MAX_USER_TEXT}")
        now = self.clock()
        turn_id = f"{int(now * 1000):013d}-{uuid.uuid4().hex[:8]}"
        with self._db.write() as db:
            db.execute(
                "INSERT INTO sessions VALUES (?, ?, ?) ON CONFLICT(session_id) "
                "DO UPDATE SET last_active_at = excluded.last_active_at",
                (session_id, now, now),
            )
            seq = db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM turns WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            db.execute(
                "INSERT INTO turns (turn_id, session_id, seq, user_text, created_at) VALUES (?, ?, ?, ?, ?)",
                (turn_id, session_id, seq, user_text, now),
            )
        return turn_id

    def complete_turn(
        self,
        turn_id: str,
        assistant_text: str,
        *,
        status: str = "complete",
        model: str = "",
        usage: dict[str, Any] | None = None,
        tool_calls: list[dict[str, Any]] | None = None,
        citations: list[dict[str, Any]] | None = None,
    ) -> TurnRecord:
        """Commit the answer; only after this returns may a front end show it."""
        values = (
            assistant_text,
            status,
            model,
            json.dumps(usage or {}),
            json.dumps(tool_calls or [], default=str),
            json.dumps(citations or [], default=str),
            self.clock(),
            turn_id,
        )
        with self._db.write() as db:
            cursor = db.execute(
                "UPDATE turns SET assistant_text=?, status=?, model=?, usage_json=?, tool_calls_json=?, "
                "citations_json=?, completed_at=? WHERE turn_id=?",
                values,
            )
            if cursor.rowcount != 1:
                raise StorageError(f"turn {turn_id} is not in the journal")
        turn = self.turn(turn_id)
        assert turn is not None
        return turn

    def turn(self, turn_id: str) -> TurnRecord | None:
        rows = self._db.rows(f"SELECT {_TURN_COLUMNS} FROM turns WHERE turn_id = ?", (turn_id,))
        return _to_record(rows[0]) if rows else None

    def previous_turns(self, turn_ids: Iterable[str]) -> dict[str, TurnRecord]:
        """Each turn's previous answered turn in its session (a turn that opens its session has none)."""
        out: dict[str, TurnRecord] = {}
        for turn_id in dict.fromkeys(turn_ids):
            rows = self._db.rows(
                f"SELECT {_TURN_COLUMNS} FROM turns WHERE session_id = "
                "(SELECT session_id FROM turns WHERE turn_id = ?) AND seq < "
                "(SELECT seq FROM turns WHERE turn_id = ?) AND status = 'complete' ORDER BY seq DESC LIMIT 1",
                (turn_id, turn_id),
            )
            if rows:
                out[turn_id] = _to_record(rows[0])
        return out

    def recent_turns(self, session_id: str, limit: int) -> list[TurnRecord]:
        """The last `limit` answered turns of a session, oldest first, then the messages a dead process
        left unanswered after them (`interrupted`): offered to the next prompt, until a turn is answered."""
        if limit <= 0:
            return []
        rows = self._db.rows(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE session_id = ? AND status NOT IN "
            f"('pending', 'failed', '{INTERRUPTED}') ORDER BY seq DESC LIMIT ?",
            (session_id, limit),
        )
        after = rows[0][2] if rows else 0
        unanswered = self._db.rows(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE session_id = ? AND status = '{INTERRUPTED}' "
            "AND seq > ? ORDER BY seq",
            (session_id, after),
        )
        return [_to_record(row) for row in [*reversed(rows), *unanswered]][-limit:]

    def interrupt_pending(self) -> int:
        """Mark the turns left `pending` as `interrupted`: their process died before the answer. Only the
        owner of the data dir may call this (then no other process has a turn in flight)."""
        with self._db.write() as db:
            cursor = db.execute(f"UPDATE turns SET status = '{INTERRUPTED}' WHERE status = 'pending'")
        return cursor.rowcount

    def turns(self, session_id: str | None = None, limit: int | None = None) -> list[TurnRecord]:
        """All turns (of one session, or of all sessions), oldest first."""
        query = f"SELECT {_TURN_COLUMNS} FROM turns"
        params: tuple[Any, ...] = ()
        if session_id is not None:
            query += " WHERE session_id = ?"
            params = (session_id,)
        query += " ORDER BY created_at DESC, seq DESC"
        if limit is not None:
            query += " LIMIT ?"
            params += (limit,)
        rows = self._db.rows(query, params)
        return [_to_record(row) for row in reversed(rows)]

    def sessions(self) -> list[SessionRecord]:
        rows = self._db.rows(
            "SELECT s.session_id, s.created_at, s.last_active_at, COUNT(t.turn_id) FROM sessions s "
            "LEFT JOIN turns t ON t.session_id = s.session_id GROUP BY s.session_id "
            "ORDER BY s.last_active_at DESC"
        )
        return [SessionRecord(*row) for row in rows]

    def purge_session(self, session_id: str) -> list[TurnRecord]:
        """Remove a session and its turns for good (the user's explicit purge); the turns removed."""
        removed = self.turns(session_id)
        with self._db.write() as db:
            db.execute("DELETE FROM turns WHERE session_id = ?", (session_id,))
            db.execute("DELETE FROM sessions WHERE session_id = ?", (session_id,))
        self._db.compact()
        return removed

    def unindexed_turns(self, limit: int = 500) -> list[TurnRecord]:
        """Finished turns (complete or cancelled with text) not yet copied into long-term memory."""
        rows = self._db.rows(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE indexed_at IS NULL AND status IN "
            "('complete', 'cancelled') ORDER BY created_at LIMIT ?",
            (limit,),
        )
        return [_to_record(row) for row in rows]

    def mark_indexed(self, turn_ids: list[str]) -> None:
        """Record that these turns are in long-term memory (after the store write, so a crash re-indexes)."""
        if not turn_ids:
            return
        now = self.clock()
        with self._db.write() as db:
            db.executemany("UPDATE turns SET indexed_at = ? WHERE turn_id = ?", [(now, t) for t in turn_ids])


def _to_record(row: tuple[Any, ...]) -> TurnRecord:
    (turn_id, session_id, seq, user, assistant, status, model, usage, calls, cites, created_at) = row
    return TurnRecord(
        turn_id=turn_id,
        session_id=session_id,
        seq=seq,
        user=user,
        assistant=assistant,
        status=status,
        model=model,
        usage=json.loads(usage),
        tool_calls=json.loads(calls),
        citations=json.loads(cites),
        created_at=created_at,
    )
