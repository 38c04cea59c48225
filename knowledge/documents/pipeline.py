"""The ingest pipeline of one document: checks, extraction, chunking, dedupe, the write, the old version out.

Order matters, for "nothing changes on failure": the size is checked from the file system before a byte
is read; the type, the bytes, the text and the chunks are all settled before the store is touched. Then,
under one lock per ingester (two jobs never interleave the check and the write of the same document):

- the newest stored version of this path has the same text and all its chunks: "unchanged", nothing
  written (older versions a crash left behind are removed);
- another document already holds the same text: "duplicate", nothing written;
- else the new version is written (idempotent ids: a write cut short by a crash is completed by the next
  one), and only then are the older versions' records removed: "ingested" or "updated". A reader sees the
  old version or the new one, never a mix (readers take the newest complete version by `created_at`).
"""

from __future__ import annotations

import hashlib
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from core.config_documents import DocumentsConfig
from knowledge.documents.chunk import TokenCount, chunk_text
from knowledge.documents.errors import DocumentError
from knowledge.documents.extract import SNIFF_BYTES, Extracted, detect_type, extract
from knowledge.documents.names import safe_name, stem_and_extension
from knowledge.documents.port import DocumentStore, StoredVersion, stored_versions

MB = 1024 * 1024


@dataclass(frozen=True)
class IngestResult:
    """What ingesting one document did. `status`: ingested, updated, unchanged or duplicate."""

    status: str
    document_id: str
    title: str
    file_path: str
    file_type: str
    chunks: int
    chars: int
    bytes: int
    content_hash: str
    pages: int = 0
    removed: int = 0  # records of older versions removed
    same_as: str = ""  # duplicate: the document that holds this text already
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The `ingest --json` entry of one document."""
        return {**asdict(self), "notes": list(self.notes)}


@dataclass(frozen=True)
class PreparedDocument:
    """A document ready to write: its text, its chunks' texts and sections, and where it came from."""

    name: str
    source_path: str
    extracted: Extracted
    texts: tuple[str, ...]
    sections: tuple[str, ...]
    size: int
    mtime: float | None

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(self.extracted.text.encode("utf-8")).hexdigest()


class DocumentIngester:
    """Ingests files into `reference_docs` through a `DocumentStore`; safe to share between threads."""

    def __init__(
        self,
        store: DocumentStore,
        settings: DocumentsConfig,
        token_count: TokenCount,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.settings = settings
        self._count = token_count
        self._clock = clock
        self._lock = threading.Lock()

    def writing(self) -> threading.Lock:
        """The lock every change of `reference_docs` by this ingester (and `docs remove`) holds."""
        return self._lock

    @property
    def max_bytes(self) -> int:
        return int(self.settings.max_file_mb * MB)

    def file_size(self, path: Path, name: str | None = None) -> int:
        """The size of a regular file within the limit, from the file system only (nothing is read)."""
        shown = safe_name(name or path.name)
        try:
            info = path.stat()
        except FileNotFoundError:
            raise DocumentError(f"{shown}: no such file") from None
        except OSError as error:
            raise DocumentError(f"{shown}: cannot be read ({error.strerror or error})") from None
        if not stat.S_ISREG(info.st_mode):
            raise DocumentError(f"{shown}: not a regular file")
        if info.st_size > self.max_bytes:
            size, limit = info.st_size / MB, self.settings.max_file_mb
            raise DocumentError(
                f"{shown}: {size:,.1f} MB is over the limit of {limit:g} MB (documents.max_file_mb)"
            )
        if info.st_size == 0:
            raise DocumentError(f"{shown}: the file is empty")
        return info.st_size

    def ingest_file(self, path: Path, *, name: str | None = None) -> IngestResult:
        """Ingest a file. `name` is the name the user knows it by when `path` is a temporary copy (an
        upload): then the stored path is that name, made safe; else the file's resolved path."""
        size = self.file_size(path, name)
        data = _read(path, size, safe_name(name or path.name))
        source = safe_name(name) if name is not None else str(path.resolve())
        mtime = None if name is not None else path.stat().st_mtime
        return self._store(self.prepare(data, name or path.name, source, mtime))

    def ingest_bytes(self, data: bytes, name: str, *, source_path: str | None = None) -> IngestResult:
        """Ingest a document held in memory under the (untrusted) file name `name`."""
        if len(data) > self.max_bytes:
            raise DocumentError(f"{safe_name(name)}: over the limit of {self.settings.max_file_mb:g} MB")
        if not data:
            raise DocumentError(f"{safe_name(name)}: the file is empty")
        return self._store(self.prepare(data, name, source_path or safe_name(name), None))

    def prepare(
        self, data: bytes, raw_name: str, source_path: str, mtime: float | None = None
    ) -> PreparedDocument:
        """Everything before the store: the name made safe, the type checked against the bytes, the text
        extracted and cut into chunks (a `DocumentError` for a file that cannot be ingested)."""
        name = safe_name(raw_name)
        stem, extension = stem_and_extension(name)
        file_type = detect_type(name, extension, data[:SNIFF_BYTES], self.settings.code_extensions)
        extracted = extract(name, data, file_type, max_pages=self.settings.max_pages)
        if not extracted.text.strip():
            scanned = " (a scanned PDF? text in images is not read)" if file_type == "pdf" else ""
            raise DocumentError(f"{name}: the document has no text{scanned}")
        settings = self.settings
        chunks = chunk_text(
            extracted.text,
            file_type,
            self._count,
            max_tokens=settings.chunk_max_tokens,
            target_chars=settings.chunk_target_chars,
            pages=extracted.pages,
        )
        if len(chunks) > settings.max_chunks:
            raise DocumentError(
                f"{name}: {len(chunks):,} chunks is over the limit of {settings.max_chunks:,}"
            )
        texts = tuple(extracted.text[c.start : c.end] for c in chunks)
        title = safe_name(extracted.title) if extracted.title.strip() else stem
        extracted = Extracted(extracted.text, file_type, title, extracted.pages, extracted.notes)
        return PreparedDocument(
            name, source_path, extracted, texts, tuple(c.section for c in chunks), len(data), mtime
        )

    def _store(self, doc: PreparedDocument) -> IngestResult:
        document_id = self.store.document_id(doc.source_path)
        digest = doc.content_hash
        with self._lock:
            versions = stored_versions(self.store, document_id)
            newest = versions[-1] if versions else None
            if newest is not None and newest.content_hash == digest and newest.complete:
                removed = self._drop(versions, keep=digest)
                return _result(doc, "unchanged", document_id, removed=removed)
            others = [h for h in self.store.holders(digest) if h != document_id]
            if others:
                return _result(doc, "duplicate", document_id, same_as=others[0])
            extra: dict[str, Any] = {"file_type": doc.extracted.file_type}
            if doc.mtime is not None:
                extra["file_mtime"] = doc.mtime
            self.store.write(
                document_id,
                doc.extracted.title,
                doc.texts,
                source_path=doc.source_path,
                created_at=self._clock(),
                extra=extra,
                sections=doc.sections,
            )
            removed = self._drop(versions, keep=digest)
        status = "updated" if any(v.content_hash != digest for v in versions) else "ingested"
        return _result(doc, status, document_id, removed=removed)

    def _drop(self, versions: list[StoredVersion], *, keep: str) -> int:
        """Remove every version but `keep` (called after `keep` is fully stored)."""
        ids = [i for v in versions if v.content_hash != keep for i in v.ids]
        if ids:
            self.store.delete(ids)
        return len(ids)


def _read(path: Path, size: int, name: str) -> bytes:
    """The file's bytes; a file that grew past its checked size since is refused, not read on."""
    try:
        with path.open("rb") as handle:
            data = handle.read(size + 1)
    except OSError as error:
        raise DocumentError(f"{name}: cannot be read ({error.strerror or error})") from None
    if len(data) != size:
        raise DocumentError(f"{name}: the file changed while it was read; try again")
    return data


def _result(
    doc: PreparedDocument, status: str, document_id: str, *, removed: int = 0, same_as: str = ""
) -> IngestResult:
    extracted = doc.extracted
    return IngestResult(
        status,
        document_id,
        extracted.title,
        doc.source_path,
        extracted.file_type,
        len(doc.texts),
        len(extracted.text),
        doc.size,
        doc.content_hash,
        pages=len(extracted.pages),
        removed=removed,
        same_as=same_as,
        notes=extracted.notes,
    )
