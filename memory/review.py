"""The review queue: dedup proposals the user decides on. Nothing here deletes anything.

The dedup scanner (`memory.dedup`) only proposes items: near-duplicates (which record to keep) and
contradicting facts (which one is right). The user approves (the other records are hidden, see
`memory.hidden`), dismisses (the pair is never proposed again) or undoes a decision (hidden records come
back). The original system deleted duplicates itself in user mode; this queue exists so that never happens.

An item's id is derived from its kind, collection and sorted record ids, so scanning again never
duplicates an item, and a dismissed or undone pair keeps its id and is not proposed again.

Status flow: open -> approved | dismissed; approved | dismissed -> undone (by `undo`); undone -> approved
| dismissed (the user decides again). Everything lives in `review.sqlite3` in the data dir (SQLite WAL,
synchronous=FULL); approving and hiding commit in one transaction.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, Literal

from core.errors import UserInputError
from core.sqlite_db import DurableDB, Migration
from memory.hidden import HIDDEN_MIGRATIONS, HiddenRecords, hide_rows, unhide_rows

REVIEW_FILE = "review.sqlite3"
# Final, so each constant has its Literal type and fits `Kind` / `Status` below.
DUPLICATE: Final = "duplicate"
CONTRADICTION: Final = "contradiction"
OPEN: Final = "open"
APPROVED: Final = "approved"
DISMISSED: Final = "dismissed"
UNDONE: Final = "undone"
Kind = Literal["duplicate", "contradiction"]
Status = Literal["open", "approved", "dismissed", "undone"]
_KINDS = (DUPLICATE, CONTRADICTION)
_DECIDABLE = (OPEN, UNDONE)

REVIEW_MIGRATIONS: tuple[Migration, ...] = (
    (
        "review_001_items",
        """
        CREATE TABLE review_items (
            id TEXT PRIMARY KEY, kind TEXT NOT NULL, collection TEXT NOT NULL, record_ids TEXT NOT NULL,
            explanation TEXT NOT NULL, score REAL, status TEXT NOT NULL, created_at REAL NOT NULL,
            decided_at REAL, keep_id TEXT, hidden_ids TEXT NOT NULL DEFAULT '[]'
        );
        CREATE INDEX review_items_by_status ON review_items (status, created_at)
        """,
    ),
)
_COLUMNS = (
    "id, kind, collection, record_ids, explanation, score, status, created_at, decided_at, keep_id, "
    "hidden_ids"
)


class ReviewError(UserInputError):
    """A decision cannot be applied: unknown item, wrong status, or a record that is not in the item."""


def item_id(kind: str, collection: str, record_ids: Iterable[str]) -> str:
    """The deterministic id of an item: the same records of the same kind always give the same id.

    The collection is part of it too: ids are unique per collection, not across collections."""
    if kind not in _KINDS:
        raise ValueError(f"unknown review item kind {kind!r}; one of {_KINDS}")
    ids = sorted(set(record_ids))
    raw = json.dumps([kind, collection, ids], separators=(",", ":"))
    return "rev_" + hashlib.sha1(raw.encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class ReviewItem:
    """A proposal: its records, why it was proposed, its status and, once decided, the action taken.

    `explanation` never quotes the records' text: a purge must not leave copies of it behind here."""

    id: str
    kind: Kind
    collection: str
    record_ids: tuple[str, ...]
    explanation: str
    score: float | None = None  # cosine similarity for a duplicate, None for a contradiction
    status: Status = "open"
    created_at: float = 0.0
    decided_at: float | None = None
    keep: str | None = None  # the record the user kept (approved items)
    hidden: tuple[str, ...] = ()  # the records approval hid

    @classmethod
    def propose(
        cls,
        kind: Kind,
        collection: str,
        record_ids: Sequence[str],
        explanation: str,
        *,
        score: float | None = None,
        created_at: float = 0.0,
    ) -> ReviewItem:
        """A new open item with its deterministic id and its record ids sorted."""
        ids = tuple(sorted(set(record_ids)))
        if len(ids) < 2:
            raise ValueError(f"a {kind} item needs at least two distinct records, got {record_ids!r}")
        return cls(
            item_id(kind, collection, ids), kind, collection, ids, explanation, score, OPEN, created_at
        )


class ReviewQueue:
    """Dedup proposals and the user's decisions on them, with the hidden-records table beside them."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._db = DurableDB(path, (*REVIEW_MIGRATIONS, *HIDDEN_MIGRATIONS), what="review queue")
        self._clock = clock
        self.hidden = HiddenRecords(self._db, clock=clock)

    # --- proposals ----------------------------------------------------------------------------------

    def propose(self, items: Iterable[ReviewItem]) -> int:
        """Queue the items not seen before (whatever their status now); returns how many were new."""
        now = self._clock()
        added = 0
        with self._db.write() as db:
            for item in items:
                cursor = db.execute(
                    f"INSERT OR IGNORE INTO review_items ({_COLUMNS}) VALUES ({', '.join('?' * 11)})",
                    (
                        item.id,
                        item.kind,
                        item.collection,
                        json.dumps(list(item.record_ids)),
                        item.explanation,
                        item.score,
                        OPEN,
                        item.created_at or now,
                        None,
                        None,
                        "[]",
                    ),
                )
                added += cursor.rowcount
        return added

    def known_ids(self, collection: str | None = None) -> set[str]:
        """Ids of every item ever queued (any status): a scan skips these."""
        if collection is None:
            return {row[0] for row in self._db.rows("SELECT id FROM review_items")}
        return {
            row[0] for row in self._db.rows("SELECT id FROM review_items WHERE collection = ?", (collection,))
        }

    def purge_records(self, record_ids: Iterable[str]) -> int:
        """Forget the proposals and hidden marks about records the user purged (their explanations quote
        the records); how many proposals went."""
        gone = set(record_ids)
        items = [item.id for item in self.items() if gone & set(item.record_ids)]
        with self._db.write() as db:
            db.executemany("DELETE FROM review_items WHERE id = ?", [(i,) for i in items])
            db.executemany("DELETE FROM hidden WHERE record_id = ?", [(r,) for r in gone])
        self._db.compact()
        return len(items)

    def get(self, item_id: str) -> ReviewItem | None:
        rows = self._db.rows(f"SELECT {_COLUMNS} FROM review_items WHERE id = ?", (item_id,))
        return _item(rows[0]) if rows else None

    def items(self, status: Status | None = None) -> list[ReviewItem]:
        """Items (with `status`, or all), oldest first."""
        where, params = ("WHERE status = ?", (status,)) if status else ("", ())
        rows = self._db.rows(f"SELECT {_COLUMNS} FROM review_items {where} ORDER BY created_at, id", params)
        return [_item(row) for row in rows]

    def open_items(self) -> list[ReviewItem]:
        """Items waiting for the user, oldest first."""
        return self.items(OPEN)

    # --- decisions ----------------------------------------------------------------------------------

    def approve(self, item_id: str, keep: str) -> ReviewItem:
        """Keep `keep` and hide the item's other records (soft: they stay in the store, `undo` restores).

        Refused when `keep` is itself hidden by another decision: hiding the rest would leave no visible
        copy, so chained approvals can never hide every record of a group."""
        now = self._clock()
        with self._db.write() as db:
            item = self._decidable(db, item_id)
            if keep not in item.record_ids:
                raise ReviewError(f"{keep!r} is not one of the records of item {item_id}: {item.record_ids}")
            if db.execute(
                "SELECT by_item FROM hidden WHERE record_id = ? AND collection = ? AND undone_at IS NULL",
                (keep, item.collection),
            ).fetchone():
                raise ReviewError(f"{keep!r} is hidden by another decision; undo that first or keep another")
            hide = tuple(record for record in item.record_ids if record != keep)
            hide_rows(db, item.collection, hide, item.id, now)
            db.execute(
                "UPDATE review_items SET status = ?, decided_at = ?, keep_id = ?, hidden_ids = ? "
                "WHERE id = ?",
                (APPROVED, now, keep, json.dumps(list(hide)), item.id),
            )
        return replace(item, status=APPROVED, decided_at=now, keep=keep, hidden=hide)

    def dismiss(self, item_id: str) -> ReviewItem:
        """The user says these records are fine as they are: nothing changes and the item never returns."""
        now = self._clock()
        with self._db.write() as db:
            item = self._decidable(db, item_id)
            db.execute(
                "UPDATE review_items SET status = ?, decided_at = ?, keep_id = NULL, hidden_ids = '[]' "
                "WHERE id = ?",
                (DISMISSED, now, item.id),
            )
        return replace(item, status=DISMISSED, decided_at=now, keep=None, hidden=())

    def undo(self, item_id: str) -> ReviewItem:
        """Revert a decision: an approval's hidden records are shown again. Refused once they are purged."""
        now = self._clock()
        with self._db.write() as db:
            item = self._load(db, item_id)
            purged = [
                row[0]
                for row in db.execute(
                    "SELECT record_id FROM hidden WHERE by_item = ? AND purged_at IS NOT NULL", (item_id,)
                )
            ]
            if purged:
                raise ReviewError(f"item {item_id} cannot be undone: records {purged} were purged for good")
            if item.status not in (APPROVED, DISMISSED):
                raise ReviewError(f"item {item_id} is {item.status}; only a decision can be undone")
            if item.status == APPROVED:
                unhide_rows(db, None, item.id, now)
            db.execute(
                "UPDATE review_items SET status = ?, decided_at = ? WHERE id = ?", (UNDONE, now, item.id)
            )
        return replace(item, status=UNDONE, decided_at=now)

    def close(self) -> None:
        self._db.close()

    def _load(self, db: Any, item_id: str) -> ReviewItem:
        row = db.execute(f"SELECT {_COLUMNS} FROM review_items WHERE id = ?", (item_id,)).fetchone()
        if row is None:
            raise ReviewError(f"no review item {item_id!r}")
        return _item(row)

    def _decidable(self, db: Any, item_id: str) -> ReviewItem:
        item = self._load(db, item_id)
        if item.status not in _DECIDABLE:
            raise ReviewError(f"item {item_id} is already {item.status}; undo it first to decide again")
        return item


def _item(row: Sequence[Any]) -> ReviewItem:
    (rid, kind, collection, record_ids, explanation, score, status, created_at, decided_at, keep, hidden) = (
        row
    )
    return ReviewItem(
        rid,
        kind,
        collection,
        tuple(json.loads(record_ids)),
        explanation,
        None if score is None else float(score),
        status,
        float(created_at),
        None if decided_at is None else float(decided_at),
        keep,
        tuple(json.loads(hidden)),
    )
