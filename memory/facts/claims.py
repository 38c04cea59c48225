"""Which summaries and reflections rely on which facts, and how outdated each one has become.

A document registers the facts (by id) it was written from. When one of those facts is superseded, the
document's claim is marked stale; its staleness ratio is stale claims / claims. Claims are fact ids, so the
object counts: a summary that says "lives in Denver" does not go stale when "lives in Boston" is superseded,
and only documents registered before the supersession are affected. Nothing is rewritten or deleted: the
ratio goes into the document's metadata, scoring ranks stale documents down (steeply above 0.8) and the
prompt labels them `[HISTORICAL -- PARTIALLY OUTDATED]`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.sqlite_db import DurableDB

CLAIMS_FILE = "claims.sqlite3"
_MIGRATIONS = (
    (
        "001_claims",
        """
        CREATE TABLE claims (
            doc_id TEXT NOT NULL, collection TEXT NOT NULL, fact_id TEXT NOT NULL,
            registered_at REAL NOT NULL, stale_at REAL,
            PRIMARY KEY (doc_id, fact_id)
        );
        CREATE INDEX claims_by_fact ON claims (fact_id)
        """,
    ),
)


@dataclass(frozen=True)
class DocStaleness:
    """A document's claims, the stale ones, and the ratio that goes into its metadata."""

    doc_id: str
    collection: str
    claims: tuple[str, ...]
    stale: tuple[str, ...]

    @property
    def ratio(self) -> float:
        return round(len(self.stale) / len(self.claims), 4) if self.claims else 0.0

    def metadata(self) -> dict[str, object]:
        return {"claims": list(self.claims), "stale_claims": list(self.stale), "staleness_ratio": self.ratio}


class ClaimIndex:
    """Document -> fact-id claims, with the staleness cascade."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self._db = DurableDB(path, _MIGRATIONS, what="claim index")
        self._clock = clock

    def register(self, doc_id: str, collection: str, fact_ids: Iterable[str]) -> DocStaleness:
        """Record the facts a document relies on (idempotent: registering again adds nothing)."""
        now = self._clock()
        with self._db.write() as db:
            db.executemany(
                "INSERT OR IGNORE INTO claims (doc_id, collection, fact_id, registered_at) "
                "VALUES (?, ?, ?, ?)",
                [(doc_id, collection, fact, now) for fact in dict.fromkeys(fact_ids)],
            )
        return self.staleness(doc_id)

    def staleness(self, doc_id: str) -> DocStaleness:
        rows = self._db.rows(
            "SELECT collection, fact_id, stale_at FROM claims WHERE doc_id = ? ORDER BY fact_id", (doc_id,)
        )
        collection = rows[0][0] if rows else ""
        claims = tuple(fact for _, fact, _ in rows)
        stale = tuple(fact for _, fact, stale_at in rows if stale_at is not None)
        return DocStaleness(doc_id, collection, claims, stale)

    def mark_stale(self, fact_ids: Sequence[str], at: float) -> list[DocStaleness]:
        """The cascade: documents registered before `at` that cite these facts get the claims marked stale.
        Returns the new staleness of every document that changed."""
        if not fact_ids:
            return []
        marks = ",".join("?" * len(fact_ids))
        with self._db.write() as db:
            docs = [
                row[0]
                for row in db.execute(
                    f"SELECT DISTINCT doc_id FROM claims WHERE fact_id IN ({marks}) AND stale_at IS NULL "
                    "AND registered_at <= ?",
                    (*fact_ids, at),
                )
            ]
            db.execute(
                f"UPDATE claims SET stale_at = ? WHERE fact_id IN ({marks}) AND stale_at IS NULL "
                "AND registered_at <= ?",
                (at, *fact_ids, at),
            )
        return [self.staleness(doc) for doc in docs]

    def purge(self, fact_ids: Sequence[str], doc_ids: Sequence[str]) -> None:
        """Forget the claims on these facts and of these documents (the user's explicit purge)."""
        with self._db.write() as db:
            db.executemany("DELETE FROM claims WHERE fact_id = ?", [(f,) for f in fact_ids])
            db.executemany("DELETE FROM claims WHERE doc_id = ?", [(d,) for d in doc_ids])
        self._db.compact()

    def close(self) -> None:
        self._db.close()
