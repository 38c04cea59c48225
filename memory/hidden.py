"""Soft deletion: records the user chose to hide stay in the vector store, only marked hidden here.

Nothing the user wrote is deleted automatically. Approving a dedup proposal hides records (a row in the
`hidden` table); undoing the decision sets `undone_at` on that row, and the record is visible again. The
text leaves the vector store only through `HiddenRecords.purge`, an explicit command that needs
`confirm=True` and touches only records that are still hidden by an approved review item.

One record may be hidden by several review items (it duplicated two others); it is hidden while any of
those rows is active (not undone). Rows are never deleted, so the table is also the history of decisions.
The table lives in the review queue's database (`memory.review.ReviewQueue` builds `HiddenRecords` on its
own `DurableDB`), because approving an item and hiding its records must commit together.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from core.errors import UserInputError
from core.sqlite_db import DurableDB, Migration

HIDDEN_MIGRATIONS: tuple[Migration, ...] = (
    (
        "hidden_001_table",
        """
        CREATE TABLE hidden (
            record_id TEXT NOT NULL, collection TEXT NOT NULL, hidden_at REAL NOT NULL,
            by_item TEXT NOT NULL DEFAULT '', undone_at REAL, purged_at REAL
        );
        CREATE INDEX hidden_by_record ON hidden (record_id, undone_at);
        CREATE INDEX hidden_by_collection ON hidden (collection, undone_at);
        CREATE INDEX hidden_by_item ON hidden (by_item)
        """,
    ),
)
DeleteFn = Callable[[str, Sequence[str]], None]  # (collection, record ids) -> None, e.g. VectorStore.delete


class PurgeRefused(UserInputError):
    """A purge was asked without `confirm=True`: purging removes text for good, so it must be explicit."""


@dataclass(frozen=True)
class PurgeResult:
    """What a purge removed from the store, and the asked ids it left alone (not hidden by an approved
    review item, already purged, or unknown)."""

    purged: tuple[str, ...]
    skipped: tuple[str, ...]


def hide_rows(
    db: sqlite3.Connection, collection: str, record_ids: Iterable[str], by_item: str, now: float
) -> int:
    """Hide records inside the caller's transaction; a record already hidden by `by_item` is left as is.
    Returns how many rows were added."""
    added = 0
    for record_id in dict.fromkeys(record_ids):
        active = db.execute(
            "SELECT 1 FROM hidden WHERE record_id = ? AND collection = ? AND by_item = ? "
            "AND undone_at IS NULL",
            (record_id, collection, by_item),
        ).fetchone()
        if active is None:
            db.execute(
                "INSERT INTO hidden (record_id, collection, hidden_at, by_item) VALUES (?, ?, ?, ?)",
                (record_id, collection, now, by_item),
            )
            added += 1
    return added


def unhide_rows(
    db: sqlite3.Connection, record_ids: Iterable[str] | None, by_item: str | None, now: float
) -> int:
    """Mark active hidden rows undone inside the caller's transaction: those of `record_ids` (all when
    None), only those of `by_item` when given. Purged rows stay: their text is gone. Returns rows changed."""
    clauses = ["undone_at IS NULL", "purged_at IS NULL"]
    params: list[str | float] = [now]
    if by_item is not None:
        clauses.append("by_item = ?")
        params.append(by_item)
    ids = None if record_ids is None else list(dict.fromkeys(record_ids))
    if ids is not None:
        if not ids:
            return 0
        clauses.append(f"record_id IN ({', '.join('?' * len(ids))})")
        params.extend(ids)
    cursor = db.execute(f"UPDATE hidden SET undone_at = ? WHERE {' AND '.join(clauses)}", params)
    return cursor.rowcount


class HiddenRecords:
    """The soft-deletion table: hide, unhide, look up, and the explicit purge."""

    def __init__(self, db: DurableDB, *, clock: Callable[[], float] = time.time) -> None:
        """`db` must carry `HIDDEN_MIGRATIONS` and the review queue's migrations (purge reads both)."""
        self._db = db
        self._clock = clock

    def hide(self, collection: str, record_ids: Sequence[str], *, by_item: str = "") -> int:
        """Hide records from search (they stay in the store). `by_item` names the review item that decided
        it; "" is a direct user request. Returns how many records became hidden by this call."""
        with self._db.write() as db:
            return hide_rows(db, collection, record_ids, by_item, self._clock())

    def unhide(self, record_ids: Sequence[str], *, by_item: str | None = None) -> int:
        """Show records again: every active hide of them, or only those made by `by_item`."""
        with self._db.write() as db:
            return unhide_rows(db, record_ids, by_item, self._clock())

    def is_hidden(self, record_id: str, collection: str | None = None) -> bool:
        """Whether any active (not undone) row hides this record."""
        sql = "SELECT 1 FROM hidden WHERE record_id = ? AND undone_at IS NULL"
        params: list[str] = [record_id]
        if collection is not None:
            sql += " AND collection = ?"
            params.append(collection)
        return bool(self._db.rows(sql + " LIMIT 1", params))

    def hidden_ids(self, collection: str) -> set[str]:
        """Ids of the records of one collection that search must skip."""
        rows = self._db.rows(
            "SELECT DISTINCT record_id FROM hidden WHERE collection = ? AND undone_at IS NULL", (collection,)
        )
        return {row[0] for row in rows}

    def purgeable(self, record_ids: Sequence[str] | None = None) -> dict[str, list[str]]:
        """Collection -> ids that a purge may remove: hidden, not undone, not yet purged, and hidden by a
        review item the user approved. Restricted to `record_ids` when given."""
        sql = (
            "SELECT DISTINCT h.collection, h.record_id FROM hidden h JOIN review_items r ON r.id = h.by_item "
            "WHERE h.undone_at IS NULL AND h.purged_at IS NULL AND r.status = 'approved'"
        )
        params: list[str] = []
        if record_ids is not None:
            ids = list(dict.fromkeys(record_ids))
            if not ids:
                return {}
            sql += f" AND h.record_id IN ({', '.join('?' * len(ids))})"
            params = ids
        found: dict[str, list[str]] = {}
        for collection, record_id in self._db.rows(sql + " ORDER BY h.collection, h.record_id", params):
            found.setdefault(collection, []).append(record_id)
        return found

    def purge(self, record_ids: Sequence[str], delete: DeleteFn, *, confirm: bool = False) -> PurgeResult:
        """Remove hidden records' text from the vector store for good: the explicit `purge` command only.

        Only records hidden by an approved review item are purged; the others are returned as skipped.
        The store delete runs first and the rows are marked purged after it, so a crash in between leaves
        the rows purgeable and a second purge finishes the job (deleting a missing id is a no-op)."""
        if confirm is not True:
            raise PurgeRefused("purging removes memories for good; ask again with confirm=True")
        eligible = self.purgeable(record_ids)
        purged: list[str] = []
        for collection, ids in eligible.items():
            delete(collection, ids)
            with self._db.write() as db:
                db.execute(
                    f"UPDATE hidden SET purged_at = ? WHERE collection = ? AND undone_at IS NULL "
                    f"AND purged_at IS NULL AND record_id IN ({', '.join('?' * len(ids))})",
                    (self._clock(), collection, *ids),
                )
            purged.extend(ids)
        done = set(purged)
        skipped = tuple(record_id for record_id in dict.fromkeys(record_ids) if record_id not in done)
        return PurgeResult(tuple(purged), skipped)

    def purged_by_item(self, item_id: str) -> list[str]:
        """Ids of the records hidden by a review item whose text has already been purged."""
        rows = self._db.rows(
            "SELECT record_id FROM hidden WHERE by_item = ? AND purged_at IS NOT NULL", (item_id,)
        )
        return [row[0] for row in rows]
