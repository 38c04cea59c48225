"""Facts on disk: SQLite (`facts.sqlite3` in the data dir), the source of truth for what is current.

Each turn's verified facts are applied in one transaction together with a marker for the turn, so applying
a turn twice (a retry after a crash) changes nothing the second time. Superseding a fact sets its status,
`superseded_by` and a reason; rows are never deleted. Every truth change is an event row (confirmation,
correction, contradiction, retraction) so the history of a fact can be read back.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.sqlite_db import DurableDB
from memory.facts.model import CURRENT, SUPERSEDED, Candidate, StoredFact
from memory.facts.truth import after_event, initial_truth
from memory.facts.verification import Decision, Verdict

FACTS_FILE = "facts.sqlite3"
_MIGRATIONS = (
    (
        "001_facts",
        """
        CREATE TABLE facts (
            id TEXT PRIMARY KEY, subject TEXT NOT NULL, subject_key TEXT NOT NULL, relation TEXT NOT NULL,
            object TEXT NOT NULL, category TEXT NOT NULL, scope TEXT NOT NULL, status TEXT NOT NULL,
            truth REAL NOT NULL, source TEXT NOT NULL, confidence REAL NOT NULL, excerpt TEXT NOT NULL,
            turn_id TEXT NOT NULL, created_at REAL NOT NULL, last_confirmed_at REAL NOT NULL,
            confirmations INTEGER NOT NULL DEFAULT 0, superseded_by TEXT, superseded_at REAL,
            reason TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX facts_by_key ON facts (subject_key, relation, status);
        CREATE TABLE fact_events (
            fact_id TEXT NOT NULL REFERENCES facts(id), kind TEXT NOT NULL, turn_id TEXT NOT NULL,
            at REAL NOT NULL, truth_after REAL NOT NULL, note TEXT NOT NULL DEFAULT '',
            UNIQUE (fact_id, kind, turn_id)
        );
        CREATE TABLE applied_turns (turn_id TEXT PRIMARY KEY, at REAL NOT NULL)
        """,
    ),
)
_COLUMNS = (
    "id, subject, relation, object, category, scope, status, truth, source, confidence, excerpt, turn_id, "
    "created_at, last_confirmed_at, confirmations, superseded_by, superseded_at, reason"
)


@dataclass(frozen=True)
class Applied:
    """What one turn changed: facts now current (new, confirmed or reinstated) and facts superseded."""

    stored: tuple[StoredFact, ...] = ()
    superseded: tuple[StoredFact, ...] = ()

    @property
    def changed(self) -> tuple[StoredFact, ...]:
        return (*self.stored, *self.superseded)


class FactStore:
    """Current and superseded facts with their truth and history."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._db = DurableDB(path, _MIGRATIONS, what="fact store")
        self._clock = clock

    def now(self) -> float:
        return self._clock()

    def current(self, subject_key: str, relation: str) -> list[StoredFact]:
        """Current facts with this subject and relation (the verifier's candidates)."""
        rows = self._db.rows(
            f"SELECT {_COLUMNS} FROM facts WHERE subject_key = ? AND relation = ? AND status = ? "
            "ORDER BY created_at",
            (subject_key, relation, CURRENT),
        )
        return [_fact(row) for row in rows]

    def get(self, fact_id: str) -> StoredFact | None:
        rows = self._db.rows(f"SELECT {_COLUMNS} FROM facts WHERE id = ?", (fact_id,))
        return _fact(rows[0]) if rows else None

    def facts(self, status: str | None = None) -> list[StoredFact]:
        """All facts (or those with `status`), oldest first."""
        where, params = ("WHERE status = ?", (status,)) if status else ("", ())
        rows = self._db.rows(f"SELECT {_COLUMNS} FROM facts {where} ORDER BY created_at, id", params)
        return [_fact(row) for row in rows]

    def of_turns(self, turn_ids: Sequence[str]) -> list[StoredFact]:
        """The facts learned from these turns."""
        wanted = set(turn_ids)
        return [fact for fact in self.facts() if fact.turn_id in wanted]

    def purge(self, fact_ids: Sequence[str]) -> int:
        """Remove facts with their history for good (the user's explicit purge); how many went. A fact
        they superseded becomes current again only by the user's own decision, never here."""
        if not fact_ids:
            return 0
        marks = ", ".join("?" * len(fact_ids))
        with self._db.write() as db:
            db.execute(f"DELETE FROM fact_events WHERE fact_id IN ({marks})", fact_ids)
            db.execute(f"UPDATE facts SET superseded_by = NULL WHERE superseded_by IN ({marks})", fact_ids)
            gone = db.execute(f"DELETE FROM facts WHERE id IN ({marks})", fact_ids).rowcount
        self._db.compact()
        return gone

    def events(self, fact_id: str) -> list[tuple[str, str, float]]:
        """(kind, turn_id, truth after) of a fact's events, in order."""
        rows = self._db.rows(
            "SELECT kind, turn_id, truth_after FROM fact_events WHERE fact_id = ? ORDER BY at, rowid",
            (fact_id,),
        )
        return [(kind, turn, truth) for kind, turn, truth in rows]

    def was_applied(self, turn_id: str) -> bool:
        return bool(self._db.rows("SELECT 1 FROM applied_turns WHERE turn_id = ?", (turn_id,)))

    def apply(self, turn_id: str, decisions: Sequence[tuple[Candidate, Decision]]) -> Applied:
        """Apply a turn's verified facts atomically; a turn already applied changes nothing."""
        now = self._clock()
        stored: dict[str, None] = {}
        superseded: dict[str, None] = {}
        with self._db.write() as db:
            if db.execute("SELECT 1 FROM applied_turns WHERE turn_id = ?", (turn_id,)).fetchone():
                return Applied()
            for candidate, decision in decisions:
                change = _Change(db, turn_id, now)
                if decision.verdict in (Verdict.STORE, Verdict.STORE_AND_FLAG):
                    stored[change.store(candidate, decision)] = None
                if decision.verdict is Verdict.REJECT:
                    for old in decision.supersedes:  # still current, a little less believed
                        change.adjust(old, "contradiction")
                if decision.verdict in (Verdict.STORE_AND_FLAG, Verdict.RETRACT):
                    new_id = candidate.id if decision.verdict is Verdict.STORE_AND_FLAG else None
                    corrected = candidate.source == "corrected"
                    for old in decision.supersedes:
                        change.supersede(old, new_id, decision.reason, corrected=corrected)
                        superseded[old] = None
            db.execute("INSERT INTO applied_turns VALUES (?, ?)", (turn_id, now))
        return Applied(
            tuple(f for f in map(self.get, stored) if f is not None),
            tuple(f for f in map(self.get, superseded) if f is not None),
        )

    def confirm(self, turn_id: str, fact_ids: Sequence[str]) -> list[StoredFact]:
        """Confirmation events for facts the user agreed with ("yes, that's right"); once per turn."""
        now = self._clock()
        with self._db.write() as db:
            if db.execute("SELECT 1 FROM applied_turns WHERE turn_id = ?", (turn_id,)).fetchone():
                return []
            change = _Change(db, turn_id, now)
            for fact_id in fact_ids:
                change.adjust(fact_id, "confirmation")
            db.execute("INSERT INTO applied_turns VALUES (?, ?)", (turn_id, now))
        return [f for f in map(self.get, fact_ids) if f is not None]

    def set_current(self, fact_id: str, current: bool, reason: str) -> StoredFact | None:
        """A user's decision (a resolved contradiction, or its undo): retire or reinstate one fact."""
        now = self._clock()
        with self._db.write() as db:
            if current:
                db.execute(
                    "UPDATE facts SET status = ?, superseded_by = NULL, superseded_at = NULL, reason = ? "
                    "WHERE id = ?",
                    (CURRENT, reason, fact_id),
                )
            else:
                db.execute(
                    "UPDATE facts SET status = ?, superseded_at = ?, reason = ? WHERE id = ?",
                    (SUPERSEDED, now, reason, fact_id),
                )
            row = db.execute("SELECT truth FROM facts WHERE id = ?", (fact_id,)).fetchone()
            if row is not None:
                kind = "reinstated" if current else "retracted"
                db.execute(
                    "INSERT INTO fact_events (fact_id, kind, turn_id, at, truth_after) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (fact_id, kind, f"user:{now}", now, float(row[0])),
                )
        return self.get(fact_id)

    def close(self) -> None:
        self._db.close()


class _Change:
    """The row updates of one fact decision, inside the caller's transaction."""

    def __init__(self, db: Any, turn_id: str, now: float) -> None:
        self._db, self._turn, self._now = db, turn_id, now

    def store(self, candidate: Candidate, decision: Decision) -> str:
        """Insert the fact, or confirm / reinstate the existing row with the same id. Returns its id."""
        query = "SELECT truth, status FROM facts WHERE id = ?"
        existing = self._db.execute(query, (candidate.id,)).fetchone()
        if existing is None:
            truth = initial_truth(candidate.source, candidate.confidence)
            self._db.execute(
                f"INSERT INTO facts ({_COLUMNS}, subject_key) VALUES ({', '.join('?' * 19)})",
                (
                    candidate.id,
                    candidate.subject,
                    candidate.relation,
                    candidate.object,
                    candidate.category,
                    candidate.scope,
                    CURRENT,
                    truth,
                    candidate.source,
                    candidate.confidence,
                    candidate.excerpt,
                    self._turn,
                    self._now,
                    self._now,
                    0,
                    None,
                    None,
                    decision.reason,
                    candidate.subject_key,
                ),
            )
            self._event(candidate.id, "stated", truth)
            return candidate.id
        truth = after_event(float(existing[0]), "confirmation")
        kind = "confirmation" if existing[1] == CURRENT else "reinstated"
        self._db.execute(
            "UPDATE facts SET truth = ?, status = ?, last_confirmed_at = ?, "
            "confirmations = confirmations + 1, superseded_by = NULL, superseded_at = NULL WHERE id = ?",
            (truth, CURRENT, self._now, candidate.id),
        )
        self._event(candidate.id, kind, truth)
        return candidate.id

    def adjust(self, fact_id: str, event: str) -> None:
        """A truth event that leaves the status alone (a contradiction that was rejected, a confirmation)."""
        row = self._db.execute("SELECT truth FROM facts WHERE id = ?", (fact_id,)).fetchone()
        if row is None:
            return
        truth = after_event(float(row[0]), event)
        if event == "confirmation":
            self._db.execute(
                "UPDATE facts SET truth = ?, last_confirmed_at = ?, confirmations = confirmations + 1 "
                "WHERE id = ?",
                (truth, self._now, fact_id),
            )
        else:
            self._db.execute("UPDATE facts SET truth = ? WHERE id = ?", (truth, fact_id))
        self._event(fact_id, event, truth)

    def supersede(self, old_id: str, new_id: str | None, reason: str, *, corrected: bool) -> None:
        """Mark a fact no longer current (kept, linked to what replaced it) and lower its truth."""
        row = self._db.execute("SELECT truth FROM facts WHERE id = ?", (old_id,)).fetchone()
        if row is None:
            return
        kind = "correction" if corrected or new_id is None else "contradiction"
        truth = after_event(float(row[0]), kind)
        self._db.execute(
            "UPDATE facts SET status = ?, truth = ?, superseded_by = ?, superseded_at = ?, reason = ? "
            "WHERE id = ?",
            (SUPERSEDED, truth, new_id, self._now, reason, old_id),
        )
        self._event(old_id, kind, truth)

    def _event(self, fact_id: str, kind: str, truth: float) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO fact_events (fact_id, kind, turn_id, at, truth_after) "
            "VALUES (?, ?, ?, ?, ?)",
            (fact_id, kind, self._turn, self._now, truth),
        )


def _fact(row: Sequence[Any]) -> StoredFact:
    (
        fid,
        subject,
        relation,
        obj,
        category,
        scope,
        status,
        truth,
        source,
        confidence,
        excerpt,
        turn_id,
        created_at,
        confirmed_at,
        confirmations,
        superseded_by,
        superseded_at,
        reason,
    ) = row
    return StoredFact(
        fid,
        subject,
        relation,
        obj,
        category,
        scope,
        status,
        float(truth),
        source,
        float(confidence),
        excerpt,
        turn_id,
        float(created_at),
        float(confirmed_at),
        int(confirmations),
        superseded_by,
        float(superseded_at) if superseded_at is not None else None,
        reason,
    )
