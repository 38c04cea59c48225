"""The Documents tab: upload (a recorded ingest job, with progress), list, re-ingest, remove; the knowledge
sources (vault, repositories) synced as background jobs; the job list with cancel; images.

Uploads are copied into the data dir's `uploads/` (the one place uploaded files live, so `docs reingest`
finds them again) and ingested by the same job ledger and pipeline as `ingest PATH`: a crash mid-way leaves
a job `ingest --resume` finishes. "Sync now" runs `sync obsidian|git`'s job (knowledge/source_sync.py) in a
worker thread over the GUI's own memory and graph, so the chat goes on meanwhile; the job list (refreshed
each second) shows every job's items, bytes and ETA, and "Cancel job" stops one between two items.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import DaemonError, UserInputError
from core.text import clip
from knowledge.documents.catalogue import list_documents, reingest_document, remove_document
from knowledge.documents.names import file_name
from knowledge.jobs import RUNNING, ItemOutcome, JobItem, JobLedger, JobRunner, Progress
from ui.gui.backends import GuiBackends
from ui.gui.widgets import empty_note, row_picker, said

if TYPE_CHECKING:
    from core.config import AppConfig
    from knowledge.documents.pipeline import DocumentIngester
    from knowledge.source_sync import GraphEditor, SyncSource
    from memory.service import MemoryService

logger = logging.getLogger(__name__)

UPLOADS = "uploads"
INGEST = "ingest"  # the job kind `ingest` records, so `docs jobs` and `ingest --resume` see GUI uploads
DOC_HEADERS = ["id", "title", "type", "chunks", "path"]
IMAGE_HEADERS = ["id", "caption", "size", "file"]
SOURCE_HEADERS = ["source", "where"]
JOB_HEADERS = ["job", "kind", "state", "items", "size", "ETA", "started"]
SOURCE_LABELS = {"obsidian": "Obsidian vault", "git": "Git repositories"}
POLL_S = 0.1
JOBS_TICK_S = 1.0


@dataclass
class SourceDesk:
    """The configured vault and repositories; "Sync now" runs a source's sync job in a worker thread."""

    jobs: JobLedger
    open_sync: Callable[[str], SyncSource]  # "obsidian" or "git" -> its sync over the GUI's memory and graph
    vault: Path | None = None
    repos: tuple[Path, ...] = ()
    _threads: dict[str, threading.Thread] = field(default_factory=dict, init=False)
    _latest: dict[str, Progress] = field(default_factory=dict, init=False)
    _notes: dict[str, str] = field(default_factory=dict, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def rows(self) -> list[list[str]]:
        """Each source and where it is (or which setting configures it)."""
        repos = ", ".join(str(r) for r in self.repos)
        return [
            [
                SOURCE_LABELS["obsidian"],
                str(self.vault) if self.vault else "not set up yet (Settings → setup wizard)",
            ],
            [SOURCE_LABELS["git"], repos or "not set up yet (Settings → setup wizard)"],
        ]

    def start(self, source: str) -> str:
        """Start the source's sync (resuming one a crash cut short first); never waits for it."""
        if source == "obsidian" and self.vault is None:
            raise UserInputError("no Obsidian vault configured: set obsidian.vault in your config file")
        if source == "git" and not self.repos:
            raise UserInputError("no repositories configured: list them in session.git_repos")
        with self._lock:
            running = self._threads.get(source)
            if running is not None and running.is_alive():
                return f"the {SOURCE_LABELS[source]} sync is already running"
            sync = self.open_sync(source)
            thread = threading.Thread(
                target=self._run, args=(source, sync), name=f"sync-{source}", daemon=True
            )
            self._threads[source] = thread
            self._notes.pop(source, None)
        thread.start()
        return f"{SOURCE_LABELS[source]}: sync started (see the job list)"

    def _run(self, source: str, sync: SyncSource) -> None:
        from knowledge.source_sync import run_sync

        try:
            report = run_sync(sync, self.jobs, progress=self._seen)
        except DaemonError as error:
            self._note(source, f"⚠ {SOURCE_LABELS[source]}: {error}")
        except Exception as error:  # noqa: BLE001 - a worker thread: said in the tab, kept in the log
            logger.exception("the %s sync stopped", source)
            self._note(source, f"⚠ {SOURCE_LABELS[source]}: the sync stopped ({type(error).__name__})")
        else:
            done = f"{report.added} added, {report.updated} updated, {report.deleted} deleted"
            stopped = " (cancelled)" if report.cancelled else ""
            self._note(source, f"{SOURCE_LABELS[source]}: {done}{stopped}")

    def _seen(self, progress: Progress) -> None:
        with self._lock:
            self._latest[progress.job_id] = progress

    def _note(self, source: str, text: str) -> None:
        with self._lock:
            self._notes[source] = text

    def status(self) -> str:
        """The last sync's outcome per source."""
        with self._lock:
            return "  \n".join(self._notes[s] for s in SOURCE_LABELS if s in self._notes)

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the running syncs (tests, shutdown)."""
        for thread in list(self._threads.values()):
            thread.join(timeout)

    def eta(self, job_id: str) -> float | None:
        with self._lock:
            progress = self._latest.get(job_id)
        return None if progress is None else progress.eta_s


def job_rows(jobs: JobLedger, sources: SourceDesk | None = None, limit: int = 20) -> list[list[Any]]:
    """The newest jobs (ingest and syncs): state, items, bytes (none for commits) and, for a running sync, its
    ETA."""
    rows = []
    for job in jobs.jobs(limit=limit):
        eta = sources.eta(job["job_id"]) if sources is not None and job["state"] == RUNNING else None
        rows.append(
            [
                job["job_id"],
                job["kind"],
                job["state"],
                f"{job['items_done']}/{job['items_total']}",
                f"{_size(job['bytes_done'])}/{_size(job['bytes_total'])}" if job["bytes_total"] else "",
                "" if eta is None else f"{eta:.0f} s",
                time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(job["created_at"])),
            ]
        )
    return rows


def _size(count: int) -> str:
    for unit, scale in (("MB", 1e6), ("KB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} B"


@dataclass
class DocumentDesk:
    """The job ledger, the ingester (opened on first use: its tokenizer loads then) and the upload dir."""

    ledger: JobLedger
    open_ingester: Callable[[], DocumentIngester]
    upload_dir: Path
    memory: MemoryService | None = None
    sources: SourceDesk | None = None
    _ingester: DocumentIngester | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    @property
    def ingester(self) -> DocumentIngester:
        with self._lock:
            if self._ingester is None:
                self._ingester = self.open_ingester()
            return self._ingester

    def keep_upload(self, temp_path: str, name: str | None = None) -> Path:
        """Copy an uploaded temp file into `uploads/` under a safe, unused name."""
        self.upload_dir.mkdir(parents=True, exist_ok=True)
        clean = file_name(name or Path(temp_path).name)
        target, n = self.upload_dir / clean, 1
        while target.exists():
            target, n = self.upload_dir / f"{Path(clean).stem}-{n}{Path(clean).suffix}", n + 1
        shutil.copyfile(temp_path, target)
        return target

    async def ingest(self, paths: Sequence[Path]) -> AsyncIterator[Progress]:
        """Record a job over `paths` and run it in a worker thread, yielding its progress until it ends."""
        ingester = await asyncio.to_thread(lambda: self.ingester)
        items = [JobItem(str(p), p.stat().st_size) for p in paths]
        job_id = self.ledger.create(INGEST, items, {"paths": [str(p) for p in paths], "from": "gui"})

        def process(item: JobItem) -> ItemOutcome:
            result = ingester.ingest_file(Path(item.key))
            return ItemOutcome(result.content_hash, result.to_json())

        handle = JobRunner(self.ledger).start(job_id, process)
        while True:
            report = await asyncio.to_thread(handle.wait, POLL_S)
            yield handle.progress()
            if report is not None:
                return

    def job_errors(self, job_id: str) -> list[str]:
        return [str(i["detail"].get("error")) for i in self.ledger.items(job_id) if i["state"] == "failed"]

    def rows(self) -> list[list[Any]]:
        """Every stored document, as `docs list` shows it."""
        return [
            [e.document_id, e.title, e.file_type, e.chunks, e.file_path]
            for e in list_documents(self.ingester.store)
        ]

    def remove(self, document_id: str) -> str:
        removed = remove_document(self.ingester.store, self.ingester, document_id)
        return f"removed {document_id} ({removed} records)"

    def reingest(self, document_id: str) -> str:
        result = reingest_document(self.ingester.store, self.ingester, document_id)
        return f"{result.status}: {result.title} ({result.chunks} chunks)"

    def images(self) -> list[list[Any]]:
        """The visual memories (caption, size, file name); the files themselves are not served."""
        if self.memory is None:
            return []
        rows = []
        for record in self.memory.latest("visual_memories", 200):
            meta = record.metadata
            size = f"{meta.get('width', '?')}×{meta.get('height', '?')}"
            name = Path(str(meta.get("image_path", ""))).name
            rows.append([record.id, clip(record.text, 160, one_line=True), size, name])
        return rows

    def jobs(self) -> list[list[Any]]:
        """The job list (ingest and sync jobs)."""
        return job_rows(self.ledger, self.sources)

    def cancel(self, job_id: str) -> str:
        """Ask a running job to stop after the item under way."""
        if not self.ledger.request_cancel(job_id):
            raise UserInputError(f"job {job_id} is not running")
        return f"job {job_id} stops after the item under way"

    def close(self) -> None:
        if self.sources is not None:
            self.sources.wait(0)
        self.ledger.close()


def open_document_desk(
    config: AppConfig, memory: MemoryService, graph: GraphEditor | None = None
) -> DocumentDesk:
    """The desk over the data dir's job ledger and `memory` (the GUI's own store, already open); with the
    GUI's knowledge graph (`graph`), the vault and repository syncs too."""
    from knowledge.documents.pipeline import DocumentIngester
    from knowledge.jobs import JOBS_FILE
    from memory.document_store import ReferenceDocStore, minilm_token_counter

    def open_ingester() -> DocumentIngester:
        return DocumentIngester(ReferenceDocStore(memory), config.documents, minilm_token_counter())

    ledger = JobLedger(config.data_dir / JOBS_FILE)
    (config.data_dir / UPLOADS).mkdir(exist_ok=True)  # before launch, which blocks the data dir's entries
    sources = open_source_desk(config, memory, ledger, graph) if graph is not None else None
    return DocumentDesk(ledger, open_ingester, config.data_dir / UPLOADS, memory, sources)


def open_source_desk(
    config: AppConfig, memory: MemoryService, jobs: JobLedger, graph: GraphEditor
) -> SourceDesk:
    """The syncs `sync obsidian|git` runs, over the GUI's memory, graph and job ledger."""
    from ui.shared.source_sync import MemorySink, build_source, open_sync_ledger

    ledger = open_sync_ledger(config, jobs)

    def open_sync(source: str) -> SyncSource:
        return build_source(
            source, config, MemorySink(memory), ledger, graph if source == "obsidian" else None
        )

    return SourceDesk(jobs, open_sync, config.obsidian.vault, tuple(config.session.git_repos))


def describe(progress: Progress) -> str:
    """One progress line: files, bytes, the file under way, and the state at the end."""
    share = progress.bytes_done / progress.bytes_total if progress.bytes_total else 1.0
    head = f"{progress.items_done}/{progress.items_total} files · {share:.0%}"
    if progress.current:
        head += f" · {Path(progress.current).name}"
    if progress.state != "running":
        head += f" · {progress.state}" + (f", {progress.failed} failed" if progress.failed else "")
    return head


def build_documents_tab(gr: Any, parts: GuiBackends) -> dict[str, Any] | None:
    """Lay out and wire the tab; None when no document store is open."""
    desk = parts.documents
    if desk is None:
        gr.Markdown("Documents are not available in this GUI (memory is not loaded).")
        return None
    c: dict[str, Any] = {}
    c["files"] = gr.File(
        label="Add documents (PDF, Word, Markdown, HTML, text, code)",
        file_count="multiple",
        elem_id="doc-upload",
        type="filepath",
    )
    c["status"] = gr.Markdown("", elem_id="doc-status")
    c["table"] = gr.Dataframe(headers=DOC_HEADERS, elem_id="docs", interactive=False, wrap=True)
    empty_note(
        gr,
        c["table"],
        "No documents yet. Add files above (or attach them in the chat) and Daemon answers from them.",
        "docs-empty",
    )
    with gr.Row(equal_height=True):
        c["doc_id"] = gr.Textbox(label="Document (click a row)", elem_id="doc-id", interactive=False, scale=3)
        c["reingest"] = gr.Button("Re-ingest", elem_id="doc-reingest", scale=1)
        c["remove"] = gr.Button("Remove", elem_id="doc-remove", variant="stop", scale=1)
        c["refresh"] = gr.Button("Refresh", elem_id="doc-refresh", scale=1)
    _sources_and_jobs(gr, desk, c)
    gr.Markdown("### Images (visual memory)")
    c["images"] = gr.Dataframe(headers=IMAGE_HEADERS, elem_id="images", interactive=False, wrap=True)
    empty_note(
        gr,
        c["images"],
        "No images yet. Add them in the Images tab or attach them in the chat.",
        "images-empty",
    )
    _wire(gr, desk, c)
    _wire_jobs(gr, desk, c)
    return c


def _sources_and_jobs(gr: Any, desk: DocumentDesk, c: dict[str, Any]) -> None:
    """The Sources section (a "Sync now" button per source) and the job list with its cancel button."""
    sources = desk.sources
    gr.Markdown("### Sources")
    if sources is None:
        gr.Markdown("Vault and repository syncs are not available in this GUI (no knowledge graph).")
    else:
        c["sources"] = gr.Dataframe(
            headers=SOURCE_HEADERS, value=sources.rows(), elem_id="doc-sources", interactive=False, wrap=True
        )
        with gr.Row(equal_height=True):
            for source, label in SOURCE_LABELS.items():
                configured = sources.vault is not None if source == "obsidian" else bool(sources.repos)
                c[f"sync_{source}"] = gr.Button(
                    f"Sync now: {label}", elem_id=f"sync-{source}", interactive=configured, scale=1
                )
        c["sync_status"] = gr.Markdown("", elem_id="sync-status")
    gr.Markdown("### Jobs")
    c["jobs"] = gr.Dataframe(headers=JOB_HEADERS, elem_id="jobs", interactive=False, wrap=True)
    empty_note(
        gr, c["jobs"], "No jobs running. Large files and syncs run here in the background.", "jobs-empty"
    )
    with gr.Row(equal_height=True):
        c["job_id"] = gr.Textbox(label="Job (click a row)", elem_id="job-id", interactive=False, scale=3)
        c["job_cancel"] = gr.Button("Cancel job", elem_id="job-cancel", variant="stop", scale=1)
    c["job_status"] = gr.Markdown("", elem_id="job-status")
    c["jobs_tick"] = gr.Timer(JOBS_TICK_S)


def _wire_jobs(gr: Any, desk: DocumentDesk, c: dict[str, Any]) -> None:
    """Sync buttons start jobs and return at once; the timer refreshes the list; cancel asks a job to stop."""

    sources = desk.sources
    if sources is not None:
        for source in SOURCE_LABELS:
            c[f"sync_{source}"].click(
                lambda s=source: (said(lambda: sources.start(s)), desk.jobs()),
                None,
                [c["sync_status"], c["jobs"]],
            )
        tick_outputs = [c["jobs"], c["sync_status"]]
        c["jobs_tick"].tick(
            lambda: (desk.jobs(), sources.status()), None, tick_outputs, show_progress="hidden"
        )
    else:
        c["jobs_tick"].tick(desk.jobs, None, [c["jobs"]], show_progress="hidden")
    c["jobs"].select(row_picker(gr), None, [c["job_id"]])
    c["job_cancel"].click(
        lambda j: (said(lambda: desk.cancel(j) if j else "pick a job in the list first"), desk.jobs()),
        [c["job_id"]],
        [c["job_status"], c["jobs"]],
    )


def _wire(gr: Any, desk: DocumentDesk, c: dict[str, Any]) -> None:
    async def upload(files: list[str] | None, progress: Any = gr.Progress()) -> AsyncIterator[Any]:
        if not files:
            return
        kept = [await asyncio.to_thread(desk.keep_upload, f) for f in files]
        last = None
        async for last in desk.ingest(kept):
            share = last.bytes_done / last.bytes_total if last.bytes_total else 1.0
            progress(share, desc=describe(last))
            yield describe(last), gr.skip(), gr.skip()
        errors = desk.job_errors(last.job_id) if last else []
        note = "" if not errors else "  \n⚠ " + "  \n⚠ ".join(clip(e, 200, one_line=True) for e in errors)
        yield (describe(last) if last else "") + note, await asyncio.to_thread(desk.rows), None

    def act(action: Callable[[str], str], document_id: str) -> tuple[Any, Any]:
        try:
            if not document_id:
                raise UserInputError("pick a document in the table first")
            message = action(document_id)
        except DaemonError as error:
            message = f"⚠ {error}"
        return message, desk.rows()

    c["files"].upload(upload, [c["files"]], [c["status"], c["table"], c["files"]], show_progress="full")
    c["table"].select(row_picker(gr), None, [c["doc_id"]])
    c["remove"].click(lambda d: act(desk.remove, d), [c["doc_id"]], [c["status"], c["table"]])
    c["reingest"].click(lambda d: act(desk.reingest, d), [c["doc_id"]], [c["status"], c["table"]])
    c["refresh"].click(lambda: (desk.rows(), desk.images()), None, [c["table"], c["images"]])
    c["reload"] = lambda: (desk.rows(), desk.images(), desk.jobs())
    c["reload_outputs"] = [c["table"], c["images"], c["jobs"]]
