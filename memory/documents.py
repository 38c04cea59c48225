"""The chunk contract of `reference_docs`: how a document is stored as chunks and put back together.

This module is the one place the contract lives; writers build records with `chunk_records`, readers use
`list_documents` and `read_document`. One document version is N records, one per chunk:

| contract | metadata field (memory/collections.py) | value |
|---|---|---|
| doc_id | `document_id` (required) | stable per source: `document_id_for(source_path)` (or any stable id) |
| title | `title` | the document's title, the same on every chunk |
| chunk_index | `chunk_index` | 0-based position of the chunk |
| chunk_count | `total_chunks` | N, the same on every chunk |
| source path | `file_path` | where the document came from |
| content hash | `content_hash` | sha256 hex of the whole document text (the version), on every chunk |
| — | `created_at` | when this version was ingested (required on every record) |

Chunks are consecutive, non-overlapping slices of the document text, so joining them in `chunk_index`
order gives the document back exactly and its sha256 equals `content_hash` (a reader can tell a complete
version from a damaged one). Record ids derive from (document id, content hash, chunk index): writing the
same version twice adds nothing, and a changed document is a new version beside the old one; readers take
the newest version (latest `created_at`). The ingester (knowledge/documents/pipeline.py) removes the old
version's records only once the new one is written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory.collections import make_id
from memory.vector_store import Record, VectorStore

REFERENCE_DOCS = "reference_docs"


def content_hash(text: str) -> str:
    """The `content_hash` of a document version: sha256 hex of its full text (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def document_id_for(source_path: str) -> str:
    """A stable document id for a source path (the same file re-ingested keeps its id)."""
    return "docsrc_" + hashlib.sha256(source_path.encode("utf-8")).hexdigest()[:20]


def chunk_records(
    document_id: str,
    title: str,
    chunks: Sequence[str],
    *,
    source_path: str,
    created_at: float,
    extra: Mapping[str, Any] | None = None,
) -> list[Record]:
    """The `reference_docs` records of one document version, per the contract above.

    `chunks` are the document's consecutive slices (their concatenation is the document); `extra` adds
    optional schema fields to every chunk (`file_type`, `file_mtime`, `section`...).
    """
    if not chunks:
        raise ValueError("a document needs at least one chunk")
    version = content_hash("".join(chunks))
    records = []
    for index, text in enumerate(chunks):
        metadata: dict[str, Any] = {
            **(extra or {}),
            "document_id": document_id,
            "title": title,
            "chunk_index": index,
            "total_chunks": len(chunks),
            "file_path": source_path,
            "content_hash": version,
            "created_at": created_at,
        }
        records.append(Record(make_id(REFERENCE_DOCS, document_id, version, index), text, metadata))
    return records


@dataclass(frozen=True)
class StoredDocument:
    """One reassembled document version: its first chunk's metadata, text and the chunk indexes missing."""

    metadata: Mapping[str, Any]
    text: str
    missing: tuple[int, ...]

    @property
    def complete(self) -> bool:
        """Every chunk is there and the text matches the version's content hash."""
        return not self.missing and content_hash(self.text) == self.metadata.get("content_hash")


def newest_version(records: Iterable[Record]) -> list[Record]:
    """The chunks of the newest version among `records` (all of one document id)."""
    versions: dict[str, list[Record]] = {}
    for record in records:
        versions.setdefault(str(record.metadata.get("content_hash", "")), []).append(record)
    if not versions:
        return []
    return max(versions.values(), key=lambda chunks: max(_created(r) for r in chunks))


def reassemble(records: Sequence[Record]) -> StoredDocument | None:
    """Join one version's chunks in `chunk_index` order (a duplicated index counts once)."""
    if not records:
        return None
    by_index = {_index(r): r for r in sorted(records, key=_created)}
    ordered = [by_index[i] for i in sorted(by_index)]
    expected = max(int(ordered[0].metadata.get("total_chunks", 0) or 0), max(by_index) + 1)
    missing = tuple(i for i in range(expected) if i not in by_index)
    first = dict(ordered[0].metadata)
    return StoredDocument(first, "".join(r.text for r in ordered), missing)


def list_documents(store: VectorStore, hidden: set[str] | frozenset[str] = frozenset()) -> list[Record]:
    """One record per document id: the first chunk of its newest version (every chunk carries the title)."""
    firsts = [r for r in store.get(REFERENCE_DOCS, where={"chunk_index": 0}) if r.id not in hidden]
    by_document: dict[str, list[Record]] = {}
    for record in firsts:
        by_document.setdefault(str(record.metadata.get("document_id", "")), []).append(record)
    return [max(group, key=_created) for group in by_document.values()]


def read_document(
    store: VectorStore, document_id: str, hidden: set[str] | frozenset[str] = frozenset()
) -> StoredDocument | None:
    """The newest version of one document, reassembled; None when the store has no chunk of it."""
    chunks = [r for r in store.get(REFERENCE_DOCS, where={"document_id": document_id}) if r.id not in hidden]
    return reassemble(newest_version(chunks))


def _created(record: Record) -> float:
    value = record.metadata.get("created_at", 0.0)
    return float(value) if isinstance(value, int | float) else 0.0


def _index(record: Record) -> int:
    value = record.metadata.get("chunk_index", 0)
    return int(value) if isinstance(value, int | float) else 0
