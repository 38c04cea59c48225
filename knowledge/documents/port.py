"""What the ingester needs from the store of `reference_docs`; `memory/document_store.py` implements it.

Plain values cross this port (the memory layer cannot import knowledge types): a document version is
named by its `content_hash`, a stored document is described by its first chunk's metadata.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class StoredVersion:
    """One version of a document in the store: the ids of its chunks there and how many it should have."""

    content_hash: str
    ids: tuple[str, ...]
    total_chunks: int
    created_at: float

    @property
    def complete(self) -> bool:
        """Every chunk of the version is stored (a crash mid-write leaves an incomplete one)."""
        return len(self.ids) >= self.total_chunks > 0


class DocumentStore(Protocol):
    """The `reference_docs` collection as the ingester and the catalogue use it (chunk contract:
    memory/documents.py). Calls are synchronous; callers run them in worker threads."""

    def document_id(self, source_path: str) -> str:
        """The stable id of the document read from `source_path` (the same path keeps its id)."""
        ...

    def versions(self, document_id: str) -> list[tuple[str, tuple[str, ...], int, float]]:
        """Each stored version of a document: (content hash, chunk ids, total chunks, created at)."""
        ...

    def holders(self, content_hash: str) -> list[str]:
        """Ids of the documents that hold a version with this content hash."""
        ...

    def write(
        self,
        document_id: str,
        title: str,
        chunks: Sequence[str],
        *,
        source_path: str,
        created_at: float,
        extra: Mapping[str, Any],
        sections: Sequence[str] = (),
    ) -> list[str]:
        """Store one version (`extra` on every chunk, `sections[i]` on chunk i); idempotent, as ids
        derive from the document, the version and the index; all of it or, on failure, none of what
        this call added. Returns the chunk ids."""
        ...

    def delete(self, ids: Sequence[str]) -> None:
        """Remove records for good (an older version, or a document the user removed)."""
        ...

    def documents(self) -> list[Mapping[str, Any]]:
        """The first chunk's metadata of every document's newest version."""
        ...


def stored_versions(store: DocumentStore, document_id: str) -> list[StoredVersion]:
    """A document's versions, oldest first."""
    found = [
        StoredVersion(h, tuple(ids), total, created) for h, ids, total, created in store.versions(document_id)
    ]
    return sorted(found, key=lambda v: v.created_at)
