"""The ingest pipeline on a real memory service: dedupe, versions, limits, and nothing changed on failure."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config import load_config
from knowledge.documents.catalogue import list_documents, reingest_document, remove_document
from knowledge.documents.chunk import estimate_tokens
from knowledge.documents.errors import DocumentError
from knowledge.documents.pipeline import DocumentIngester
from memory.document_store import ReferenceDocStore
from memory.documents import read_document
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.service import MemoryService
from tests.unit.knowledge.documents_samples import (
    HTML_PAGE,
    MARKDOWN,
    PYTHON,
    encrypted_pdf_bytes,
    pdf_bytes,
    write_docx,
    zip_bytes,
)
from tests.unit.memory.profile_helpers import committed_profiles

DOCS = "reference_docs"


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def service() -> Iterator[MemoryService]:
    svc = MemoryService(InMemoryStore(HashingEmbedder(64)), committed_profiles())
    svc.open()
    yield svc
    svc.close()


@pytest.fixture
def ingester(service: MemoryService) -> DocumentIngester:
    settings = load_config().documents.model_copy(update={"max_file_mb": 1.0})
    return DocumentIngester(ReferenceDocStore(service), settings, estimate_tokens, clock=Clock())


def snapshot(service: MemoryService) -> tuple[dict[str, int], set[str]]:
    """Counts of every collection and every record id of the documents collection."""
    return service.stats(), {r.id for r in service.store.get(DOCS)}


def write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_each_format_is_ingested_and_reads_back_exactly(
    ingester: DocumentIngester, service: MemoryService, tmp_path: Path
) -> None:
    files = [
        write(tmp_path / "boat.md", MARKDOWN),
        write(tmp_path / "tool.py", PYTHON),
        write(tmp_path / "guide.html", HTML_PAGE),
        write(tmp_path / "old.txt", "Grüße aus Köln\r\n".encode("cp1252")),
        write(tmp_path / "ferry.pdf", pdf_bytes([["Ferry at 07:40."], ["Pier 3."]])),
        write_docx(tmp_path / "plan.docx", "Trip plan", [("Gear", ["Bring the red kayak."])]),
    ]
    for path in files:
        result = ingester.ingest_file(path)
        assert result.status == "ingested" and result.chunks >= 1
        stored = read_document(service.store, result.document_id)  # the store the ingester writes to
        assert stored is not None and stored.complete
        assert stored.metadata["file_path"] == str(path.resolve())
    assert {e.file_type for e in list_documents(ingester.store)} == {
        "md",
        "code",
        "html",
        "txt",
        "pdf",
        "docx",
    }
    old = next(e for e in list_documents(ingester.store) if e.file_type == "txt")
    assert ingester.ingest_file(tmp_path / "old.txt").notes == ("not UTF-8: read as Windows-1252",)
    assert old.title == "old"


def test_the_same_bytes_again_are_unchanged_and_add_nothing(
    ingester: DocumentIngester, service: MemoryService, tmp_path: Path
) -> None:
    path = write(tmp_path / "boat.md", MARKDOWN)
    first = ingester.ingest_file(path)
    before = snapshot(service)
    again = ingester.ingest_file(path)
    assert (again.status, again.document_id, again.removed) == ("unchanged", first.document_id, 0)
    assert snapshot(service) == before


def test_the_same_text_at_another_path_is_a_duplicate(
    ingester: DocumentIngester, service: MemoryService, tmp_path: Path
) -> None:
    first = ingester.ingest_file(write(tmp_path / "boat.md", MARKDOWN))
    before = snapshot(service)
    copy = ingester.ingest_file(write(tmp_path / "copy.md", MARKDOWN))
    assert (copy.status, copy.same_as) == ("duplicate", first.document_id)
    assert snapshot(service) == before


def test_a_changed_file_replaces_its_old_version(
    ingester: DocumentIngester, service: MemoryService, tmp_path: Path
) -> None:
    path = write(tmp_path / "boat.md", MARKDOWN)
    first = ingester.ingest_file(path)
    old_ids = {r.id for r in service.store.get(DOCS)}
    write(path, MARKDOWN.replace("7319", "8420"))
    second = ingester.ingest_file(path)
    assert (second.status, second.document_id) == ("updated", first.document_id)
    assert second.removed == first.chunks and second.content_hash != first.content_hash
    stored = read_document(service.store, first.document_id)
    assert stored is not None and stored.complete and "8420" in stored.text and "7319" not in stored.text
    assert not old_ids & {r.id for r in service.store.get(DOCS)}  # the old records are gone
    assert len(list_documents(ingester.store)) == 1


def test_a_crash_between_the_new_version_and_the_removal_is_cleaned_up_by_the_next_run(
    ingester: DocumentIngester, service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "boat.md", MARKDOWN)
    ingester.ingest_file(path)
    write(path, MARKDOWN + "\nNew line.\n")
    monkeypatch.setattr(ingester, "_drop", lambda versions, keep: 0)  # "killed" before the old one went
    ingester.ingest_file(path)
    monkeypatch.undo()
    stored = read_document(service.store, ingester.store.document_id(str(path.resolve())))
    assert stored is not None and "New line." in stored.text  # readers already see the new version
    again = ingester.ingest_file(path)
    assert again.status == "unchanged" and again.removed > 0
    assert len({r.metadata["content_hash"] for r in service.store.get(DOCS)}) == 1


def test_an_upload_name_with_traversal_is_stored_sanitised(
    ingester: DocumentIngester, tmp_path: Path
) -> None:
    temp = write(tmp_path / "upload-1234.tmp", MARKDOWN.replace("# Boathouse\n", "Plain start.\n"))
    result = ingester.ingest_file(temp, name="../../etc/cron.d/evil notes.md")
    assert (result.file_path, result.title) == ("evil notes.md", "evil notes")
    assert ".." not in result.file_path and "/" not in result.file_path
    from_bytes = ingester.ingest_bytes(b"some text", "/abs/path/../x.txt")
    assert from_bytes.file_path == "x.txt"


def bad_files(tmp_path: Path) -> list[tuple[Path, str]]:
    sparse = tmp_path / "huge.txt"
    with sparse.open("wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # 200 MB, no block written
    return [
        (sparse, "200.0 MB is over the limit of 1 MB"),
        (write(tmp_path / "broken.pdf", pdf_bytes([["x"]])[:100] + b"\x00junk" * 30), "damaged"),
        (write(tmp_path / "archive.pdf", zip_bytes()), "ZIP archive renamed to .pdf"),
        (write(tmp_path / "locked.pdf", encrypted_pdf_bytes("secret")), "encrypted"),
        (write(tmp_path / "blank.pdf", pdf_bytes([[]])), "no text"),
        (write(tmp_path / "empty.md", ""), "empty"),
        (write(tmp_path / "spaces.txt", "  \n\n\t\n"), "no text"),
        (write(tmp_path / "tool.exe", b"MZ\x00\x00"), "not supported"),
        (write(tmp_path / "fake.docx", b"hello"), "not a Word"),
        (tmp_path / "missing.md", "no such file"),
        (tmp_path, "not a regular file"),
    ]


def test_every_bad_file_is_a_clear_error_and_changes_nothing(
    ingester: DocumentIngester, service: MemoryService, tmp_path: Path
) -> None:
    ingester.ingest_file(write(tmp_path / "boat.md", MARKDOWN))  # something to keep unchanged
    before = snapshot(service)
    for path, message in bad_files(tmp_path):
        with pytest.raises(DocumentError, match=message):
            ingester.ingest_file(path)
        assert snapshot(service) == before, path


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(
    ingester: DocumentIngester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    huge = tmp_path / "huge.md"
    with huge.open("wb") as handle:
        os.truncate(handle.fileno(), 200 * 1024 * 1024)  # sparse: nothing is written

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was opened")

    monkeypatch.setattr(Path, "open", no_reading)
    with pytest.raises(DocumentError, match="over the limit"):
        ingester.ingest_file(huge)


def test_a_failed_store_write_leaves_nothing_behind(
    ingester: DocumentIngester, service: MemoryService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(service)
    real_upsert = service.store.upsert

    def half_then_fail(collection: str, records: list, embeddings: object = None) -> None:
        real_upsert(collection, records[: len(records) // 2 or 1], None)
        raise OSError("disk full")

    monkeypatch.setattr(service.store, "upsert", half_then_fail)
    with pytest.raises(OSError, match="disk full"):
        ingester.ingest_file(write(tmp_path / "long.md", MARKDOWN * 20))
    monkeypatch.undo()
    assert snapshot(service) == before


def test_remove_and_reingest(ingester: DocumentIngester, service: MemoryService, tmp_path: Path) -> None:
    path = write(tmp_path / "boat.md", MARKDOWN)
    doc = ingester.ingest_file(path).document_id
    assert reingest_document(ingester.store, ingester, doc).status == "unchanged"
    write(path, MARKDOWN + "\nMore.\n")
    assert reingest_document(ingester.store, ingester, doc).status == "updated"
    removed = remove_document(ingester.store, ingester, doc)
    assert removed > 0 and service.store.get(DOCS) == [] and list_documents(ingester.store) == []
    with pytest.raises(DocumentError, match="docs list"):
        remove_document(ingester.store, ingester, doc)


def test_reingest_of_an_upload_says_to_ingest_the_file_again(ingester: DocumentIngester) -> None:
    doc = ingester.ingest_bytes(b"uploaded words", "upload.txt").document_id
    with pytest.raises(DocumentError, match="ingest the file again"):
        reingest_document(ingester.store, ingester, doc)
