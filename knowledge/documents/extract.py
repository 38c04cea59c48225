"""Text out of a file: the type from the name, checked against the file's first bytes, then the text.

| type | read with | structure kept |
|---|---|---|
| txt | the bytes, decoded (below) | paragraphs |
| md | the bytes, decoded | headers, paragraphs, fenced code |
| code (by extension) | the bytes, decoded | top-level blocks (functions, classes) |
| pdf | pypdf, page by page | pages (their start offsets) |
| docx | python-docx: paragraphs and tables in order | headings become `#` lines, tables ` | ` rows |
| html | beautifulsoup4 (script, style, nav, ... dropped) | headings become `#` lines, `<pre>` fenced |

Text files are decoded as UTF-8, UTF-8 with a BOM, UTF-16 with a BOM, else Windows-1252 (else Latin-1,
which never fails), the last two with a note saying so. Line ends become `\\n`. Every failure is a
`DocumentError` naming the file: a type not on the list, a file whose bytes are another type's (a zip
renamed to .pdf), a damaged or encrypted PDF, a damaged .docx, binary bytes in a text file.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.zip_limits import expands_beyond_reason
from knowledge.documents.errors import DocumentError

TEXT_TYPES = {"txt": "txt", "text": "txt", "md": "md", "markdown": "md"}
HTML_EXTENSIONS = ("html", "htm", "xhtml")
SNIFF_BYTES = 8192
# A .docx's XML (text, styles, layout; images excluded) inflated: a 1,000-page report is ~20 MB of it, and
# python-docx holds the parsed tree at several times that.
MAX_DOCX_MARKUP_BYTES = 100 << 20
_PDF_MAGIC = b"%PDF-"
_ZIP_MAGIC = b"PK\x03\x04"
_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
_DROPPED_TAGS = ("script", "style", "nav", "noscript", "template", "svg", "iframe", "form", "button", "head")
_BLOCK_TAGS = (
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "aside",
    "blockquote",
    "table",
    "ul",
    "ol",
    "dl",
    "figure",
    "tr",
    "br",
    "hr",
)
_BLANK_RUNS = re.compile(r"\n[ \t]*(?:\n[ \t]*){2,}")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")


@dataclass(frozen=True)
class Extracted:
    """A document's text and what its structure tells the chunker.

    `pages` are the start offsets of PDF pages in `text` (empty for other types); `title` is the
    document's own title when it names one (an HTML `<title>`, a docx's core title, a markdown `# H1`);
    `notes` say what was guessed (an encoding).
    """

    text: str
    file_type: str
    title: str = ""
    pages: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()


def detect_type(name: str, extension: str, head: bytes, code_extensions: Iterable[str]) -> str:
    """The file's type from its extension, confirmed by its first bytes (`head`)."""
    if extension == "pdf":
        if _ZIP_MAGIC in head[:4]:
            raise DocumentError(f"{name}: this is a ZIP archive renamed to .pdf, not a PDF")
        if _PDF_MAGIC not in head[:1024]:
            raise DocumentError(f"{name}: this is not a PDF (it does not start with %PDF-)")
        return "pdf"
    if extension == "docx":
        if not head.startswith(_ZIP_MAGIC):
            raise DocumentError(f"{name}: this is not a Word .docx file (a .docx is a ZIP package)")
        return "docx"
    kind = TEXT_TYPES.get(extension)
    if kind is None and extension in HTML_EXTENSIONS:
        kind = "html"
    if kind is None and extension in tuple(code_extensions):
        kind = "code"
    if kind is None:
        what = f"'.{extension}' files" if extension else "files without an extension"
        raise DocumentError(f"{name}: {what} are not supported; use txt, md, pdf, docx, html or source code")
    _check_text_bytes(name, head)
    return kind


def _check_text_bytes(name: str, head: bytes) -> None:
    """A text file must not be a PDF, an archive or other binary data under a text name."""
    if head.startswith(_PDF_MAGIC):
        raise DocumentError(f"{name}: this is a PDF under a text file's name; rename it to .pdf")
    if head.startswith(_ZIP_MAGIC):
        raise DocumentError(f"{name}: this is a ZIP archive (or .docx), not a text file")
    if b"\x00" in head and not any(head.startswith(bom) for bom, _ in _BOMS[1:]):
        raise DocumentError(f"{name}: this looks like binary data, not text")


def decode_text(data: bytes) -> tuple[str, tuple[str, ...]]:
    """Bytes to text: UTF-8 (BOM or not), UTF-16 with a BOM, else Windows-1252, else Latin-1 (noted)."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return _lines(data.decode(codec)), ()
            except UnicodeDecodeError:
                break
    try:
        return _lines(data.decode("utf-8")), ()
    except UnicodeDecodeError:
        pass
    try:
        return _lines(data.decode("cp1252")), ("not UTF-8: read as Windows-1252",)
    except UnicodeDecodeError:
        return _lines(data.decode("latin-1")), ("not UTF-8: read as Latin-1",)


def _lines(text: str) -> str:
    """One line end (`\\n`), no NUL characters (nothing downstream keeps them)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def extract(name: str, data: bytes, file_type: str, *, max_pages: int) -> Extracted:
    """The text of a file whose type `detect_type` settled."""
    if file_type == "pdf":
        return _pdf(name, data, max_pages)
    if file_type == "docx":
        return _docx(name, data)
    text, notes = decode_text(data)
    if file_type == "html":
        return _html(text, notes)
    title = _markdown_title(text) if file_type == "md" else ""
    return Extracted(text, file_type, title, notes=notes)


def _markdown_title(text: str) -> str:
    match = re.match(r"\s*#[ \t]+(.+?)[ \t#]*\n", text + "\n")
    return match.group(1).strip() if match else ""


def _pdf(name: str, data: bytes, max_pages: int) -> Extracted:
    """Each page's text, pages joined by a blank line; the start offset of every page kept."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        _unlock(name, reader)
        count = len(reader.pages)
        if count > max_pages:
            raise DocumentError(
                f"{name}: {count} pages is more than the limit of {max_pages} (documents.max_pages)"
            )
        texts = [_lines(page.extract_text() or "").strip("\n") for page in reader.pages]
    except DocumentError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as error:
        raise DocumentError(
            f"{name}: the PDF is damaged and cannot be read ({type(error).__name__})"
        ) from None
    starts, parts, at = [], [], 0
    for text in texts:
        starts.append(at)
        parts.append(text + "\n\n")
        at += len(text) + 2
    return Extracted("".join(parts), "pdf", pages=tuple(starts))


def _unlock(name: str, reader: Any) -> None:
    """An encrypted PDF opens only if it needs no password to read (an owner password alone)."""
    if not reader.is_encrypted:
        return
    try:
        opened = reader.decrypt("")
    except Exception:  # noqa: BLE001 - any decryption failure means the same to the user
        opened = 0
    if not opened:
        raise DocumentError(f"{name}: the PDF is encrypted and needs a password; save an unencrypted copy")


def _docx(name: str, data: bytes) -> Extracted:
    """Body paragraphs and tables in document order; `Heading N` styles become `#` lines."""
    from docx import Document

    try:
        _check_docx_sizes(name, zipfile.ZipFile(io.BytesIO(data)))
        document = Document(io.BytesIO(data))
        blocks = list(_docx_blocks(document))
        title = (document.core_properties.title or "").strip()
    except DocumentError:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as error:
        raise DocumentError(
            f"{name}: the .docx file is damaged and cannot be read ({type(error).__name__})"
        ) from None
    except Exception as error:  # noqa: BLE001 - python-docx raises its own types for broken packages
        raise DocumentError(f"{name}: the .docx file cannot be read ({type(error).__name__})") from None
    return Extracted("".join(f"{b}\n\n" for b in blocks if b.strip()), "docx", title)


def _check_docx_sizes(name: str, package: zipfile.ZipFile) -> None:
    """Refuse a package that would inflate beyond reason before python-docx inflates and parses it."""
    parts = package.infolist()
    if any(expands_beyond_reason(part) for part in parts):
        raise DocumentError(f"{name}: the .docx file expands beyond reason (a decompression bomb?); not read")
    markup = sum(part.file_size for part in parts if not part.filename.startswith("word/media/"))
    if markup > MAX_DOCX_MARKUP_BYTES:
        raise DocumentError(
            f"{name}: the .docx file's text and layout inflate to {markup >> 20:,} MB, over the "
            f"{MAX_DOCX_MARKUP_BYTES >> 20} MB Daemon reads; split it or save it as PDF or text"
        )


def _docx_blocks(document: Any) -> Iterable[str]:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    for child in document.element.body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = Paragraph(child, document)
            yield _docx_paragraph(paragraph.text, paragraph.style.name if paragraph.style else "")
        elif tag == "tbl":
            table = Table(child, document)
            yield "\n".join(" | ".join(cell.text.strip() for cell in row.cells) for row in table.rows)


def _docx_paragraph(text: str, style: str) -> str:
    text = _lines(text).strip()
    match = re.fullmatch(r"Heading ([1-6])", style or "")
    if match and text:
        return "#" * int(match.group(1)) + " " + text.replace("\n", " ")
    if style == "Title" and text:
        return "# " + text.replace("\n", " ")
    return text


def _html(markup: str, notes: tuple[str, ...]) -> Extracted:
    """Visible text: scripts, styles, navigation and forms dropped; headings, lists and `<pre>` kept."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(markup, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup.find_all(_DROPPED_TAGS):
        tag.decompose()
    for pre in soup.find_all("pre"):
        pre.replace_with(f"\n\n```\n{pre.get_text().strip(chr(10))}\n```\n\n")
    for level in range(1, 7):
        for heading in soup.find_all(f"h{level}"):
            heading.replace_with(f"\n\n{'#' * level} {heading.get_text(' ', strip=True)}\n\n")
    for item in soup.find_all("li"):
        item.insert_before("\n- ")
    for block in soup.find_all(_BLOCK_TAGS):
        block.insert_before("\n\n")
        block.insert_after("\n\n")
    text = _TRAILING_SPACE.sub("\n", _lines(soup.get_text()))
    text = _BLANK_RUNS.sub("\n\n", text).strip("\n")
    return Extracted(text + "\n" if text else "", "html", title, notes=notes)
