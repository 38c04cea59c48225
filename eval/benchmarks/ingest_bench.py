"""`bench ingest`: document ingestion throughput (pages/s, MB/s) beside plain text extraction, same run.

Generated documents (seeded): PDFs of `pages` pages (about 45 lines of prose a page, written here as
valid PDF 1.4) and markdown files of about the same text per "page". Three stages, each timed `runs` times
on the same files and reported as the median:

- `extract`: the baseline: reading the files and pulling their text out (pypdf page by page; decoding
  for markdown). Nothing else can be faster than this.
- `chunk`: extraction + the type checks + structure-aware chunking with MiniLM's tokenizer (no store).
- `ingest`: the whole pipeline into a fresh memory store per run (embedding every chunk with MiniLM,
  Chroma and the lexical index), as `python main.py ingest` does it, with the embedder of every other
  benchmark (one torch thread; `ingest` itself lets torch use every core).

Imports and the model load happen before the clocks start (one untimed extraction, one embedding).

The headline is each stage's pages/s and MB/s and its share of the baseline's speed.
"""

from __future__ import annotations

import io
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.config_documents import DocumentsConfig
from knowledge.documents.extract import decode_text, extract
from knowledge.documents.pipeline import DocumentIngester
from memory.document_store import ReferenceDocStore, minilm_token_counter
from memory.service import MemoryService

_WORDS = (
    "the river boat harbour ferry island morning ticket engine crew north shore lake kayak paddle weather "
    "storm calm season spring autumn village market bridge road map compass lantern rope anchor sail deck "
    "captain passenger schedule timetable delay harbourmaster pier dock warehouse cargo fishing net"
).split()


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(6, 14))]
    return " ".join(words).capitalize() + "."


def _page_lines(rng: random.Random, lines: int = 45) -> list[str]:
    return [" ".join(_sentence(rng) for _ in range(2))[:95] for _ in range(lines)]


def _pdf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def pdf_document(pages: list[list[str]]) -> bytes:
    """A minimal valid PDF 1.4: one Helvetica text page per entry of `pages`, one line per string, with a
    correct cross-reference table (so no reader has to repair it). The ingestion tests write their PDFs
    with it too."""
    count = len(pages)
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids ["
        + b" ".join(f"{4 + 2 * i} 0 R".encode() for i in range(count))
        + b"]"
        + f" /Count {count} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, lines in enumerate(pages):
        text = (
            "BT /F1 12 Tf 14 TL 72 720 Td "
            + " ".join(f"({_pdf_escape(line)}) Tj T*" for line in lines)
            + " ET"
        )
        stream = text.encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {5 + 2 * i} 0 R "
            "/Resources << /Font << /F1 3 0 R >> >> >>".encode()
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def _markdown(rng: random.Random, pages: int, number: int) -> str:
    parts = [f"# Harbour notes {number}\n"]
    for page in range(pages):
        parts.append(f"\n## Part {page + 1}\n\n")
        lines = _page_lines(rng)
        parts.extend(" ".join(lines[i : i + 5]) + "\n\n" for i in range(0, len(lines), 5))
    return "".join(parts)


def write_corpus(folder: Path, docs: int, pages: int, seed: int = 15) -> list[Path]:
    """`docs` PDFs and `docs` markdown files of `pages` pages each."""
    rng = random.Random(seed)
    files = []
    for i in range(docs):
        pdf = folder / f"report{i:03d}.pdf"
        pdf.write_bytes(pdf_document([_page_lines(rng) for _ in range(pages)]))
        md = folder / f"notes{i:03d}.md"
        md.write_text(_markdown(rng, pages, i), encoding="utf-8")
        files += [pdf, md]
    return files


def _extract_only(files: list[Path], settings: DocumentsConfig) -> None:
    for path in files:
        data = path.read_bytes()
        if path.suffix == ".pdf":
            extract(path.name, data, "pdf", max_pages=settings.max_pages)
        else:
            decode_text(data)


def _timed(work: Callable[[], Any], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return times


def _rates(times: list[float], pages: int, megabytes: float, baseline: float | None) -> dict[str, Any]:
    median = statistics.median(times)
    row = {
        "seconds_p50": round(median, 3),
        "seconds_all": [round(t, 3) for t in times],
        "pages_per_s": round(pages / median, 1),
        "mb_per_s": round(megabytes / median, 3),
    }
    if baseline is not None:
        row["speed_vs_extract"] = round(baseline / median, 4)
    return row


def run_ingest_benchmark(
    memory_in: Callable[[Path], MemoryService],
    settings: DocumentsConfig,
    *,
    docs: int = 5,
    pages: int = 6,
    runs: int = 3,
) -> dict[str, Any]:
    """Time extraction, extraction + chunking and the whole ingest on the same generated files."""
    count = minilm_token_counter()
    with tempfile.TemporaryDirectory(prefix="daemon-bench-ingest-") as tmp:
        root = Path(tmp)
        (root / "files").mkdir()
        files = write_corpus(root / "files", docs, pages)
        total_pages = 2 * docs * pages  # a markdown file's "page" holds the same amount of text
        megabytes = sum(p.stat().st_size for p in files) / 1e6
        _extract_only(files, settings)  # warm-up, untimed: imports (pypdf) and the file cache
        base = _timed(lambda: _extract_only(files, settings), runs)
        probe = DocumentIngester(_NoStore(), settings, count)
        chunks = _timed(lambda: [probe.prepare(p.read_bytes(), p.name, str(p)) for p in files], runs)
        chunk_count = sum(len(probe.prepare(p.read_bytes(), p.name, str(p)).texts) for p in files)
        full = []
        for run in range(runs):
            service = memory_in(root / f"store{run}" / "chroma")
            service.embedder.embed(["warm-up"])  # the model loads once, untimed (every run shares it)
            try:
                ingester = DocumentIngester(ReferenceDocStore(service), settings, count)
                start = time.perf_counter()
                for path in files:
                    ingester.ingest_file(path)
                full.append(time.perf_counter() - start)
            finally:
                service.close()
    baseline = statistics.median(base)
    return {
        "documents": len(files),
        "pages": total_pages,
        "megabytes": round(megabytes, 3),
        "chunks": chunk_count,
        "runs": runs,
        "extract": _rates(base, total_pages, megabytes, None),
        "chunk": _rates(chunks, total_pages, megabytes, baseline),
        "ingest": _rates(full, total_pages, megabytes, baseline),
    }


class _NoStore:
    """The chunk stage never reaches a store."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the chunk stage touched the store ({name})")


def ingest_headline(result: dict[str, Any]) -> str:
    """The benchmark as a small table."""
    lines = [
        f"{result['documents']} documents, {result['pages']} pages, {result['megabytes']} MB, "
        f"{result['chunks']} chunks; median of {result['runs']} runs",
        "stage      pages/s     MB/s   vs extract",
    ]
    for stage in ("extract", "chunk", "ingest"):
        row = result[stage]
        share = f"{row['speed_vs_extract']:.3f}" if "speed_vs_extract" in row else "1 (baseline)"
        lines.append(f"{stage:<8} {row['pages_per_s']:>9.1f} {row['mb_per_s']:>8.3f}   {share}")
    return "\n".join(lines)
