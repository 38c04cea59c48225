"""What the source syncs (Obsidian vault, git history) share: the ports they write through and the
progress and cancel hooks a background job runner drives.

This package never imports memory (docs/architecture.md), so records leave through `RecordSink`, which
main.py implements over the memory service, and graph edits through `GraphEditor` (the knowledge service).
Every sync function is synchronous, reports progress after each item and checks its cancel token between
items: a cancelled sync has stored whole items only, and the next run goes on from its ledger.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from knowledge.graph import KnowledgeGraph

T = TypeVar("T")


@dataclass(frozen=True)
class SourceRecord:
    """One record for a memory collection: its id, the text to embed and its flat metadata."""

    id: str
    text: str
    metadata: Mapping[str, Any]


class RecordSink(Protocol):
    """Where synced records go (the memory service's collections)."""

    def upsert(self, collection: str, records: Sequence[SourceRecord]) -> None:
        """Store or replace records by id (embedding them)."""
        ...

    def mark(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> int:
        """Merge metadata changes into stored records (text and vector kept); returns how many changed."""
        ...


class GraphEditor(Protocol):
    """Serialised, persisted changes to the knowledge graph."""

    def edit(self, change: Callable[[KnowledgeGraph], T]) -> T:
        """Run `change` on the graph under its lock and save the graph if it changed."""
        ...


class CancelToken(Protocol):
    """Anything with `is_set()`: a `threading.Event`, an `asyncio.Event`, a job runner's token."""

    def is_set(self) -> bool: ...


@dataclass(frozen=True)
class Progress:
    """Where a sync is: items done of `total` (None while unknown), bytes read, the current item."""

    done: int
    total: int | None
    bytes: int = 0
    item: str = ""


ProgressFn = Callable[[Progress], None]


@dataclass
class SyncReport:
    """What one sync did. `skipped` names each item left out and why; `cancelled` when stopped early."""

    source: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    records: int = 0
    edges_added: int = 0
    edges_ended: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)
    cancelled: bool = False
    details: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The `sync … --json` object."""
        return {
            "source": self.source,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
            "records": self.records,
            "edges_added": self.edges_added,
            "edges_ended": self.edges_ended,
            "skipped": list(self.skipped),
            "errors": list(self.errors),
            "cancelled": self.cancelled,
            "details": list(self.details),
        }


def record_id(prefix: str, collection: str, *parts: object) -> str:
    """A stable record id `<prefix>_<20 hex>` from its parts, derived the way memory derives ids (NFKC,
    case-folded, whitespace collapsed): the same item always gets the same id, a re-sync adds nothing."""
    normal = [" ".join(unicodedata.normalize("NFKC", str(p)).casefold().split()) for p in parts]
    digest = hashlib.sha256("\x1f".join([collection, *normal]).encode("utf-8")).hexdigest()[:20]
    return f"{prefix}_{digest}"


def cancelled(token: CancelToken | None) -> bool:
    """Whether the caller asked the sync to stop."""
    return token is not None and token.is_set()
