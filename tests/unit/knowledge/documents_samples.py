"""Real small documents for the ingestion tests, written by the tests themselves (no fixture files)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from eval.benchmarks.ingest_bench import pdf_document as pdf_bytes


def encrypted_pdf_bytes(text: str, password: str = "secret") -> bytes:
    """A PDF that needs `password` to be read (pypdf's writer, AES); with `password=""` it is encrypted
    but opens without one (an owner password only: printing or copying restricted)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes([[text]]))))
    writer.encrypt(user_password=password, owner_password="owner-" + password, algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def write_docx(path: Path, title: str, sections: list[tuple[str, list[str]]]) -> Path:
    """A Word document: a title, then per section a `Heading 1` and its paragraphs, and a small table."""
    from docx import Document

    document = Document()
    document.core_properties.title = title
    for heading, paragraphs in sections:
        document.add_heading(heading, level=1)
        for paragraph in paragraphs:
            document.add_paragraph(paragraph)
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate((("item", "price"), ("kayak", "420"))):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.save(str(path))
    return path


def zip_bytes() -> bytes:
    """A small ZIP archive (what a .docx is, and what a renamed archive looks like)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("notes.txt", "not a pdf")
    return out.getvalue()


HTML_PAGE = """<!doctype html>
<html><head><title>Harbour guide</title><style>body { color: red }</style>
<script>var tracking = "SCRIPT-TEXT";</script></head>
<body>
<nav><a href="/">Home</a> | <a href="/menu">NAV-TEXT</a></nav>
<h1>Harbour guide</h1>
<p>The ferry to the island leaves at <b>07:40</b> from pier 3.</p>
<h2>Code</h2>
<pre>def ferry():
    return "07:40"</pre>
<ul><li>life jackets</li><li>tickets</li></ul>
<noscript>NOSCRIPT-TEXT</noscript>
</body></html>
"""

MARKDOWN = """# Boathouse

The boathouse is on the north shore of the lake.

## Access

The access code for the boathouse door is 7319, changed every spring.

## Setup

```python
def open_door(code: int) -> bool:
    return code == 7319
```

Keep the oars dry.
"""

PYTHON = '''"""A module."""

import os


def first(x: int) -> int:
    """Double it."""
    y = x * 2

    return y


class Second:
    def method(self) -> str:
        return "ok"
'''
