"""What `reference_docs` holds, document by document: `docs list`, `docs remove ID`, `docs reingest ID`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from knowledge.documents.errors import DocumentError
from knowledge.documents.pipeline import DocumentIngester, IngestResult
from knowledge.documents.port import DocumentStore, stored_versions


@dataclass(frozen=True)
class DocumentEntry:
    """One stored document (its newest version), as `docs list` shows it."""

    document_id: str
    title: str
    file_path: str
    file_type: str
    chunks: int
    content_hash: str
    created_at: float

    def to_json(self) -> dict[str, Any]:
        """The `docs list --json` entry."""
        return asdict(self)


def _entry(meta: Mapping[str, Any]) -> DocumentEntry:
    def text(key: str) -> str:
        value = meta.get(key)
        return value if isinstance(value, str) else ""

    chunks, created = meta.get("total_chunks", 0), meta.get("created_at", 0.0)
    return DocumentEntry(
        text("document_id"),
        text("title"),
        text("file_path"),
        text("file_type"),
        int(chunks) if isinstance(chunks, int | float) else 0,
        text("content_hash"),
        float(created) if isinstance(created, int | float) else 0.0,
    )


def list_documents(store: DocumentStore) -> list[DocumentEntry]:
    """Every stored document, by title."""
    return sorted((_entry(m) for m in store.documents()), key=lambda e: (e.title.casefold(), e.document_id))


def find_document(store: DocumentStore, document_id: str) -> DocumentEntry:
    """The stored document with this id; a `DocumentError` pointing at `docs list` otherwise."""
    for entry in list_documents(store):
        if entry.document_id == document_id:
            return entry
    raise DocumentError(f"no stored document has the id {document_id!r}; `docs list` shows the ids")


def remove_document(store: DocumentStore, ingester: DocumentIngester, document_id: str) -> int:
    """Remove every version of a document (the user asked); returns how many records went."""
    find_document(store, document_id)
    with ingester.writing():
        ids = [i for v in stored_versions(store, document_id) for i in v.ids]
        store.delete(ids)
    return len(ids)


def reingest_document(store: DocumentStore, ingester: DocumentIngester, document_id: str) -> IngestResult:
    """Read a document's source file again: a changed file replaces the stored version."""
    entry = find_document(store, document_id)
    source = Path(entry.file_path)
    if not source.is_absolute() or not source.is_file():
        raise DocumentError(
            f"{entry.title}: its source {entry.file_path!r} is not a file on this machine any more; "
            "ingest the file again (`ingest PATH`)"
        )
    return ingester.ingest_file(source)
