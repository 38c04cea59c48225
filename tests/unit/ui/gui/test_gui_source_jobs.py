"""The Documents tab's Sources section and job list: a sync started from the GUI runs in the background on
the shared job ledger, its job is listed with its progress, and a running job can be cancelled.

Real parts: a vault on disk, the memory service, the graph store and the SQLite job ledger."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from core.errors import UserInputError
from knowledge.graph_store import GraphStore
from knowledge.jobs import CANCELLED, DONE, JobLedger
from knowledge.obsidian import OBSIDIAN_NOTES, SYNC_OBSIDIAN, ObsidianSync
from knowledge.service import KnowledgeService
from knowledge.source_sync import SourceRecord, SyncSource
from knowledge.sync_ledger import SyncLedger
from memory.service import MemoryService
from tests.unit.knowledge.sync_helpers import CountingSink, open_memory, records
from ui.gui.documents_tab import JOB_HEADERS, DocumentDesk, SourceDesk, job_rows

if TYPE_CHECKING:
    from knowledge.documents.pipeline import DocumentIngester


class GatedSink(CountingSink):
    """Holds each write until the test lets it through (a sync caught mid-vault, without timing)."""

    def __init__(self, service: MemoryService) -> None:
        super().__init__(service)
        self.gate = threading.Semaphore(0)
        self.writing = threading.Semaphore(0)

    def upsert(self, collection: str, records: Sequence[SourceRecord]) -> None:
        self.writing.release()
        self.gate.acquire()
        super().upsert(collection, records)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    for i in range(4):
        (root / f"N{i}.md").write_text(f"# N{i}\nText {i}. [[N{(i + 1) % 4}]] #t\n")
    return root


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[JobLedger]:
    jobs = JobLedger(tmp_path / "jobs.sqlite3")
    yield jobs
    jobs.close()


def desk_for(vault: Path | None, ledger: JobLedger, tmp_path: Path, sink: CountingSink) -> DocumentDesk:
    sync_ledger = SyncLedger(ledger)
    graph = KnowledgeService(GraphStore(tmp_path / "graph.json"))

    def open_sync(source: str) -> SyncSource:
        assert source == "obsidian" and vault is not None
        return ObsidianSync(vault, sink, sync_ledger, graph)

    def no_ingester() -> DocumentIngester:
        raise AssertionError("a source sync never opens the document ingester")

    sources = SourceDesk(ledger, open_sync, vault)
    return DocumentDesk(ledger, no_ingester, tmp_path / "uploads", sources=sources)


def test_sync_now_returns_at_once_and_the_job_list_follows_the_job_to_its_end(
    vault: Path, ledger: JobLedger, tmp_path: Path
) -> None:
    memory = open_memory()
    sink = GatedSink(memory)
    desk = desk_for(vault, ledger, tmp_path, sink)
    assert desk.sources is not None
    assert "sync started" in desk.sources.start("obsidian")  # returned while the first note is held
    assert sink.writing.acquire(timeout=30)
    assert "already running" in desk.sources.start("obsidian")
    (row,) = desk.jobs()
    assert len(row) == len(JOB_HEADERS) and row[1:4] == [SYNC_OBSIDIAN, "running", "0/4"]
    for _ in range(4):
        sink.gate.release()
    desk.sources.wait(30)
    (row,) = desk.jobs()
    assert row[2:4] == [DONE, "4/4"]
    assert "4 added" in desk.sources.status()
    assert len(records(memory, OBSIDIAN_NOTES)) == 4


def test_cancel_job_stops_a_running_sync_between_notes(
    vault: Path, ledger: JobLedger, tmp_path: Path
) -> None:
    sink = GatedSink(open_memory())
    desk = desk_for(vault, ledger, tmp_path, sink)
    assert desk.sources is not None
    desk.sources.start("obsidian")
    assert sink.writing.acquire(timeout=30)
    job_id = desk.jobs()[0][0]
    assert "stops after the item under way" in desk.cancel(job_id)
    sink.gate.release()  # the note under way finishes
    desk.sources.wait(30)
    job = ledger.job(job_id)
    assert job is not None and job["state"] == CANCELLED
    assert desk.jobs()[0][3] == "1/4" and "cancelled" in desk.sources.status()
    with pytest.raises(UserInputError, match="not running"):
        desk.cancel(job_id)


def test_an_unconfigured_source_says_which_setting_to_set(ledger: JobLedger, tmp_path: Path) -> None:
    desk = desk_for(None, ledger, tmp_path, CountingSink(open_memory()))
    assert desk.sources is not None
    assert desk.sources.rows()[0][1] == "not set up yet (Settings → setup wizard)"
    with pytest.raises(UserInputError, match="obsidian.vault"):
        desk.sources.start("obsidian")
    with pytest.raises(UserInputError, match="session.git_repos"):
        desk.sources.start("git")


def test_the_job_list_shows_ingest_and_sync_jobs_newest_first(ledger: JobLedger) -> None:
    ledger.create("ingest", [], {})
    ledger.create(SYNC_OBSIDIAN, [], {})
    assert [r[1] for r in job_rows(ledger)] == [SYNC_OBSIDIAN, "ingest"]


def test_the_gui_desk_syncs_the_configured_vault_into_its_own_memory_and_graph(
    vault: Path, tmp_path: Path
) -> None:
    from core.config import load_config
    from ui.gui.documents_tab import open_document_desk

    data = tmp_path / "data"
    data.mkdir()
    (data / "sync_ledger.sqlite3").write_bytes(b"")  # an older, empty ledger file: imported and set aside
    base = load_config(overrides={"data_dir": str(data)})
    config = base.model_copy(update={"obsidian": base.obsidian.model_copy(update={"vault": vault})})
    memory = open_memory()
    graph = KnowledgeService(GraphStore(data / "graph.json"))
    desk = open_document_desk(config, memory, graph)
    assert desk.sources is not None and desk.sources.rows()[0][1] == str(vault)
    desk.sources.start("obsidian")
    desk.sources.wait(60)
    assert "4 added" in desk.sources.status()
    assert len(records(memory, OBSIDIAN_NOTES)) == 4 and graph.graph.edges("note:n0", "links_to")
    assert (data / "sync_ledger.sqlite3.imported").exists()
    desk.close()
