"""Per-session conversational state on disk: `session_state.sqlite3` in the data dir (WAL, synchronous=FULL).

One row per session: the escalation state and how long the session has been in it as columns (readable with
the sqlite3 shell), and the whole `SessionState` as JSON, the source the row is loaded from. JSON keeps the
schema stable while the state grows: a key the file lacks takes its default, one it has that the code no
longer knows is ignored. The state is derived from the conversation, so a row that cannot be read is logged
and the session starts afresh rather than failing its turn.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from core.pipeline.session_state import escalation_snapshot
from core.ports import SessionState
from core.sqlite_db import DurableDB

logger = logging.getLogger(__name__)

SESSION_STATE_FILE = "session_state.sqlite3"
_MIGRATIONS = (
    (
        "001_session_state",
        """
        CREATE TABLE session_state (
            session_id TEXT PRIMARY KEY,
            escalation_state TEXT NOT NULL,
            turns_in_state INTEGER NOT NULL,
            turns INTEGER NOT NULL,
            state_json TEXT NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
    ),
)
_FIELDS = {f.name: str(f.type) for f in fields(SessionState)}  # name -> its annotation, as text
_SCALARS: dict[str, type | tuple[type, ...]] = {"str": str, "int": int, "float": (int, float), "bool": bool}


def encode(state: SessionState) -> str:
    """The JSON a row stores."""
    return json.dumps(asdict(state), sort_keys=True, separators=(",", ":"))


def decode(text: str) -> SessionState:
    """A stored row's `SessionState` (JSON lists back to tuples); ValueError when it is not one."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    values: dict[str, Any] = {}
    for name, value in data.items():
        kind = _FIELDS.get(name)
        if kind is None:
            continue  # written by a newer version: not ours to interpret
        if kind.startswith("tuple") and value is not None:
            if not isinstance(value, list):
                raise ValueError(f"{name} is not a list")
            value = tuple(str(item) for item in value)
        elif kind in _SCALARS and not isinstance(value, _SCALARS[kind]):
            raise ValueError(f"{name} is not a {kind}")
        values[name] = value
    state = SessionState(**values)
    escalation_snapshot(state)  # raises ValueError for a state or tone name the FSM does not know
    return state


class SessionStateDB:
    """SQLite-backed `SessionStateStore`. Safe to call from several threads (one connection, one lock)."""

    def __init__(
        self, path: Path, clock: Callable[[], float] = time.time, *, read_only: bool = False
    ) -> None:
        """`read_only`: only read an existing file (`analyze` beside the process that owns the data dir)."""
        self.path = path
        self._clock = clock
        self._db = DurableDB(path, _MIGRATIONS, what="session state", read_only=read_only)

    def close(self) -> None:
        self._db.close()

    def purge(self, session_id: str) -> None:
        """Remove a session's state for good (its short-term context holds its words)."""
        with self._db.write() as db:
            db.execute("DELETE FROM session_state WHERE session_id = ?", (session_id,))
        self._db.compact()

    def load(self, session_id: str) -> SessionState | None:
        rows = self._db.rows("SELECT state_json FROM session_state WHERE session_id = ?", (session_id,))
        return self._decoded(session_id, rows[0][0]) if rows else None

    def update(self, session_id: str, change: Callable[[SessionState], SessionState]) -> SessionState:
        # Read and write inside one BEGIN IMMEDIATE: a concurrent turn of the same session waits, then
        # applies its step to this one's result instead of overwriting it.
        with self._db.write() as db:
            row = db.execute(
                "SELECT state_json FROM session_state WHERE session_id = ?", (session_id,)
            ).fetchone()
            current = (self._decoded(session_id, row[0]) if row else None) or SessionState()
            state = change(current)
            db.execute(
                "INSERT INTO session_state VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET "
                "escalation_state = excluded.escalation_state, turns_in_state = excluded.turns_in_state, "
                "turns = excluded.turns, state_json = excluded.state_json, updated_at = excluded.updated_at",
                (
                    session_id,
                    state.escalation_state,
                    state.turns_in_state,
                    state.turns,
                    encode(state),
                    self._clock(),
                ),
            )
        return state

    def _decoded(self, session_id: str, text: str) -> SessionState | None:
        try:
            return decode(text)
        except (ValueError, TypeError) as error:  # a hand-edited or damaged row: start the session afresh
            logger.warning(
                "the stored state of session %s is unreadable (%s); starting afresh", session_id, error
            )
            return None


def read_session_states(data_dir: Path) -> SessionStateDB | None:
    """The data dir's session states opened for reading only (None: no file, so nothing is stored yet).
    Needs no data-dir lock: WAL lets it read beside the process that owns the data dir."""
    path = data_dir / SESSION_STATE_FILE
    return SessionStateDB(path, read_only=True) if path.exists() else None
