"""`bench ingest` on a tiny generated corpus: every stage timed on the same files, the baseline beside it."""

from __future__ import annotations

import io
from pathlib import Path

from pypdf import PdfReader

from core.config import load_config
from eval.benchmarks.ingest_bench import ingest_headline, pdf_document, run_ingest_benchmark, write_corpus
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.service import MemoryService
from tests.unit.memory.profile_helpers import committed_profiles


def test_the_generated_pdfs_are_valid_with_one_text_page_per_entry(tmp_path: Path) -> None:
    reader = PdfReader(io.BytesIO(pdf_document([["first (page)"], ["second page"]])))
    assert [p.extract_text().strip() for p in reader.pages] == ["first (page)", "second page"]
    files = write_corpus(tmp_path, docs=2, pages=3)
    assert sorted(p.suffix for p in files) == [".md", ".md", ".pdf", ".pdf"]


def test_the_benchmark_reports_each_stage_beside_extraction() -> None:
    written: list[int] = []

    class Counted(MemoryService):
        def close(self) -> None:  # the benchmark closes each run's store: count what it held first
            written.append(len(self.store.get("reference_docs")))
            super().close()

    def memory_in(folder: Path) -> MemoryService:
        service = Counted(InMemoryStore(HashingEmbedder(64)), committed_profiles())
        service.open()
        return service

    result = run_ingest_benchmark(memory_in, load_config().documents, docs=1, pages=2, runs=2)
    assert (result["documents"], result["pages"], result["runs"]) == (2, 4, 2)
    assert written == [result["chunks"]] * 2  # a fresh store per run: dedupe never makes a run a no-op
    for stage in ("chunk", "ingest"):
        assert result[stage]["speed_vs_extract"] > 0 and len(result[stage]["seconds_all"]) == 2
    assert "speed_vs_extract" not in result["extract"]
    assert "1 (baseline)" in ingest_headline(result)
