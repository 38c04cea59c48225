"""Extraction on real small files of each type, and a clear error for each kind of bad file."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.documents.errors import DocumentError
from knowledge.documents.extract import decode_text, detect_type, extract
from knowledge.documents.names import file_name, safe_name
from tests.unit.knowledge.documents_samples import (
    HTML_PAGE,
    MARKDOWN,
    encrypted_pdf_bytes,
    pdf_bytes,
    write_docx,
    zip_bytes,
)

CODE = ("py", "js")


def read(name: str, data: bytes):
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    kind = detect_type(name, extension, data[:8192], CODE)
    return extract(name, data, kind, max_pages=100)


def test_a_pdf_gives_each_page_with_its_start_offset() -> None:
    found = read("guide.pdf", pdf_bytes([["The ferry leaves at 07:40.", "From pier 3."], ["Page two text."]]))
    assert found.file_type == "pdf"
    assert "The ferry leaves at 07:40." in found.text and "Page two text." in found.text
    assert len(found.pages) == 2 and found.pages[0] == 0
    assert found.text[found.pages[1] :].startswith("Page two text.")


def test_a_docx_keeps_headings_as_header_lines_and_its_table(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "plan.docx", "Trip plan", [("Gear", ["Bring the red kayak."])])
    found = read("plan.docx", path.read_bytes())
    assert found.title == "Trip plan"
    assert "# Gear\n\nBring the red kayak." in found.text
    assert "kayak | 420" in found.text


def test_html_drops_script_style_nav_and_keeps_headings_and_code() -> None:
    found = read("guide.html", HTML_PAGE.encode())
    assert found.title == "Harbour guide"
    for gone in ("SCRIPT-TEXT", "NAV-TEXT", "color: red", "NOSCRIPT-TEXT"):
        assert gone not in found.text
    assert "# Harbour guide" in found.text and "## Code" in found.text
    assert '```\ndef ferry():\n    return "07:40"\n```' in found.text
    assert "07:40 from pier 3" in " ".join(found.text.split())


def test_markdown_and_code_are_kept_as_written() -> None:
    found = read("boat.md", MARKDOWN.encode())
    assert found.text == MARKDOWN and found.title == "Boathouse"
    assert read("tool.py", b"print('hi')\n").file_type == "code"


def test_a_zip_renamed_to_pdf_is_named_as_such() -> None:
    with pytest.raises(DocumentError, match="ZIP archive renamed to .pdf"):
        read("report.pdf", zip_bytes())


def test_a_corrupt_pdf_is_a_clear_error() -> None:
    broken = pdf_bytes([["hello"]])[:120] + b"\x00garbage" * 20
    with pytest.raises(DocumentError, match="damaged"):
        read("broken.pdf", broken)
    with pytest.raises(DocumentError, match="not a PDF"):
        read("fake.pdf", b"hello, I am text")


def test_an_encrypted_pdf_asks_for_an_unencrypted_copy() -> None:
    with pytest.raises(DocumentError, match="encrypted and needs a password"):
        read("locked.pdf", encrypted_pdf_bytes("secret text"))


def test_a_pdf_with_only_an_owner_password_is_read() -> None:
    assert "free to read" in read("restricted.pdf", encrypted_pdf_bytes("free to read", password="")).text


def test_a_damaged_docx_and_a_text_docx_are_refused() -> None:
    with pytest.raises(DocumentError, match="damaged|cannot be read"):
        read("notes.docx", zip_bytes())
    with pytest.raises(DocumentError, match="not a Word"):
        read("notes.docx", b"plain text")


def test_unknown_types_and_binary_text_are_refused() -> None:
    with pytest.raises(DocumentError, match="'.exe' files are not supported"):
        read("setup.exe", b"MZ\x90\x00")
    with pytest.raises(DocumentError, match="binary"):
        read("notes.txt", b"abc\x00\x01\x02def")
    with pytest.raises(DocumentError, match="PDF under a text"):
        read("notes.txt", pdf_bytes([["x"]]))


@pytest.mark.parametrize(
    ("data", "text", "note"),
    [
        ("café ✓".encode(), "café ✓", ()),
        (b"\xef\xbb\xbfcaf\xc3\xa9", "café", ()),
        ("café".encode("utf-16"), "café", ()),
        ("naïve – “quotes”".encode("cp1252"), "naïve – “quotes”", ("not UTF-8: read as Windows-1252",)),
        (b"caf\xe9 \x81", "café \x81", ("not UTF-8: read as Latin-1",)),
        (b"line one\r\nline two\r", "line one\nline two\n", ()),
    ],
)
def test_text_encodings_are_detected_and_noted(data: bytes, text: str, note: tuple[str, ...]) -> None:
    assert decode_text(data) == (text, note)


def test_non_utf8_text_is_ingested_with_a_note() -> None:
    found = read("old.txt", "Grüße aus Köln".encode("cp1252"))
    assert found.text == "Grüße aus Köln" and found.notes == ("not UTF-8: read as Windows-1252",)


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("../../etc/passwd.md", "passwd.md"),
        ("/etc/shadow.txt", "shadow.txt"),
        ("C:\\Users\\me\\..\\secret.pdf", "secret.pdf"),
        ("..", "document"),
        ("notes\x1b[2J.md", "notes[2J.md"),
        ("...hidden.txt", "hidden.txt"),
    ],
)
def test_names_from_outside_are_reduced_to_a_safe_last_part(raw: str, safe: str) -> None:
    assert safe_name(raw) == safe


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("../../etc/passwd", "passwd"),
        ("rapport final?<>.md", "rapport final_.md"),
        ("notes\x00.md", "notes.md"),  # a NUL never reaches the file system
        ("invoice\u202egpj.exe", "invoicegpj.exe"),  # the right-to-left override that hid ".exe" is gone
        ("CON", "_CON"),
        ("nul.txt", "_nul.txt"),  # Windows devices, whatever the extension
        ("com1.tar.gz", "_com1.tar.gz"),
        ("x" * 300 + ".pdf", "x" * 116 + ".pdf"),  # long names are cut, the extension kept
        ("..", "document"),
    ],
)
def test_an_upload_name_becomes_a_file_name_any_system_accepts(raw: str, kept: str) -> None:
    assert file_name(raw) == kept


def _docx_with(path: Path, part: str, content: bytes) -> bytes:
    """A real .docx with one part replaced (or added), deflated at the highest level."""
    import io
    import zipfile

    source = write_docx(path, "Plan", [("Gear", ["Bring the red kayak."])])
    out = io.BytesIO()
    with (
        zipfile.ZipFile(source) as original,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as new,
    ):
        for info in original.infolist():
            if info.filename != part:
                new.writestr(info, original.read(info))
        new.writestr(part, content)
    return out.getvalue()


def test_a_docx_decompression_bomb_is_refused_before_it_is_inflated(tmp_path: Path) -> None:
    bomb = _docx_with(tmp_path / "plan.docx", "word/document.xml", b"\0" * (64 << 20))
    assert len(bomb) < 200_000  # 64 MB of document in a small file
    with pytest.raises(DocumentError, match="expands beyond reason"):
        read("plan.docx", bomb)


def test_a_docx_whose_markup_inflates_past_the_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from knowledge.documents import extract as extract_module

    monkeypatch.setattr(extract_module, "MAX_DOCX_MARKUP_BYTES", 1 << 20)
    text = "".join(
        f"<w:p><w:r><w:t>Paragraph {n} of the long report.</w:t></w:r></w:p>" for n in range(30_000)
    )
    large = _docx_with(tmp_path / "plan.docx", "word/styles2.xml", text.encode())
    with pytest.raises(DocumentError, match=r"inflate to 2 MB, over the 1 MB Daemon reads"):
        read("report.docx", large)
    assert (
        "red kayak" in read("plan.docx", (tmp_path / "plan.docx").read_bytes()).text
    )  # a normal one is read


def test_a_docx_with_an_entity_expansion_bomb_is_read_without_expanding_it(tmp_path: Path) -> None:
    import time

    entities = '<!ENTITY a "lollollollollollollollollollol">' + "".join(
        f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9)
    )
    document = (
        f'<?xml version="1.0"?><!DOCTYPE w:document [{entities}]>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        "<w:body><w:p><w:r><w:t>Before &j; after</w:t></w:r></w:p></w:body></w:document>"
    ).encode()
    started = time.monotonic()
    try:
        found = read("laughs.docx", _docx_with(tmp_path / "plan.docx", "word/document.xml", document))
    except DocumentError:
        found = None  # refused is as good as read unexpanded
    assert time.monotonic() - started < 10
    assert found is None or ("lol" not in found.text and len(found.text) < 1000)
