"""The `reference_docs` chunk contract (memory/documents.py) and `get_full_document`'s title matching."""

from __future__ import annotations

import hashlib

import pytest

from core.ports import DocumentInfo
from core.tools.document_tools import match_title
from memory.collections import get_spec, validate_metadata
from memory.documents import chunk_records, content_hash, document_id_for, newest_version, reassemble

TEXT = "# Trip notes\n\nDay 1: Cortina.\nDay 2: Lagazuoi.\n"


def _chunks(text: str, size: int = 9) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def test_chunk_records_carry_the_contract_and_fit_the_collection_schema() -> None:
    records = chunk_records("doc-1", "Trip notes", _chunks(TEXT), source_path="/n/trip.md", created_at=5.0)
    spec = get_spec("reference_docs")
    assert len(records) == len(_chunks(TEXT))
    for index, record in enumerate(records):
        validate_metadata(spec, record.metadata)  # raises on any field the schema does not know
        meta = record.metadata
        assert (meta["document_id"], meta["title"], meta["file_path"]) == (
            "doc-1",
            "Trip notes",
            "/n/trip.md",
        )
        assert (meta["chunk_index"], meta["total_chunks"]) == (index, len(records))
        assert meta["content_hash"] == hashlib.sha256(TEXT.encode()).hexdigest()
        assert record.id.startswith("doc_")


def test_ids_are_stable_per_version_and_change_with_the_text() -> None:
    first = chunk_records("d", "T", _chunks(TEXT), source_path="/p", created_at=1.0)
    again = chunk_records("d", "T", _chunks(TEXT), source_path="/p", created_at=9.0)
    changed = chunk_records("d", "T", _chunks(TEXT + "Day 3."), source_path="/p", created_at=9.0)
    assert [r.id for r in first] == [r.id for r in again]
    assert not {r.id for r in first} & {r.id for r in changed}
    assert document_id_for("/p") == document_id_for("/p") != document_id_for("/q")


def test_reassembly_is_exact_and_prefers_the_newest_version() -> None:
    old = chunk_records("d", "T", _chunks("old text"), source_path="/p", created_at=1.0)
    new = chunk_records("d", "T", _chunks(TEXT), source_path="/p", created_at=2.0)
    found = reassemble(newest_version([*reversed(new), *old]))
    assert found is not None and found.text == TEXT and found.complete
    assert content_hash(found.text) == found.metadata["content_hash"]
    partial = reassemble([r for r in new if r.metadata["chunk_index"] != 2])
    assert partial is not None and partial.missing == (2,) and not partial.complete


def _doc(title: str, path: str = "", doc_id: str = "") -> DocumentInfo:
    return DocumentInfo(doc_id or f"id-{title}", title, 1, path)


DOCS = [
    _doc("Quarterly Budget 2026", "/d/budget-2026.md"),
    _doc("Budget notes 2025", "/d/b25.md"),
    _doc("Garden plan", "/g/garden.md"),
]


@pytest.mark.parametrize(
    ("asked", "expected"),
    [
        ("Garden plan", "Garden plan"),
        ("  garden   PLAN! ", "Garden plan"),
        ("gardn plan", "Garden plan"),
        ("quarterly budjet", "Quarterly Budget 2026"),
        ("budget-2026", "Quarterly Budget 2026"),
        ("id-Budget notes 2025", "Budget notes 2025"),
    ],
)
def test_a_title_close_enough_finds_one_document(asked: str, expected: str) -> None:
    found = match_title(asked, DOCS)
    assert found.document is not None and found.document.title == expected


def test_close_titles_and_no_title_at_all() -> None:
    ambiguous = match_title("budget", DOCS)
    assert ambiguous.document is None
    assert [d.title for d in ambiguous.candidates] == ["Quarterly Budget 2026", "Budget notes 2025"]
    nothing = match_title("tax return", DOCS)
    assert nothing.document is None and nothing.candidates == ()
    assert match_title("", DOCS) == match_title("", [])  # an empty title names nothing
    twins = match_title("Notes", [_doc("Notes", "/a/notes.md", "a"), _doc("Notes", "/b/notes.md", "b")])
    assert twins.document is None and [d.document_id for d in twins.candidates] == ["a", "b"]
