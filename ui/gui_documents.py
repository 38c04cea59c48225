"""The Documents tab: upload (a recorded ingest job, with progress), list, re-ingest, remove; images.

Uploads are copied into the data dir's `uploads/` (the one place uploaded files live, so `docs reingest`
finds them again) and ingested by the same job ledger and pipeline as `ingest PATH`: a crash mid-way leaves
a job `ingest --resume` finishes.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import DaemonError, UserInputError
from core.text import clip
from knowledge.documents.catalogue import list_documents, reingest_document, remove_document
from knowledge.jobs import ItemOutcome, JobItem, JobLedger, JobRunner, Progress
from ui.gui_backends import GuiBackends
from ui.gui_widgets import row_picker

if TYPE_CHECKING:
    from core.config import AppConfig
    from knowledge.documents.pipeline import DocumentIngester
    from memory.service import MemoryService

UPLOADS = "uploads"
INGEST = "ingest"  # the job kind `ingest` records, so `docs jobs` and `ingest --resume` see GUI uploads
DOC_HEADERS = ["id", "title", "type", "chunks", "path"]
IMAGE_HEADERS = ["id", "caption", "size", "file"]
POLL_S = 0.1
_UNSAFE = re.compile(r"[^\w.\- ]+")


@dataclass
class DocumentDesk:
    """The job ledger, the ingester (opened on first use: its tokenizer loads then) and the upload dir."""

    ledger: JobLedger
    open_ingester: Callable[[], DocumentIngester]
    upload_dir: Path
    memory: MemoryService | None = None
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
        clean = _UNSAFE.sub("_", Path(name or temp_path).name).strip(" .") or "upload"
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

    def close(self) -> None:
        self.ledger.close()


def open_document_desk(config: AppConfig, memory: MemoryService) -> DocumentDesk:
    """The desk over the data dir's job ledger and `memory` (the GUI's own store, already open)."""
    from knowledge.documents.pipeline import DocumentIngester
    from knowledge.jobs import JOBS_FILE
    from memory.document_store import ReferenceDocStore, minilm_token_counter

    def open_ingester() -> DocumentIngester:
        return DocumentIngester(ReferenceDocStore(memory), config.documents, minilm_token_counter())

    ledger = JobLedger(config.data_dir / JOBS_FILE)
    (config.data_dir / UPLOADS).mkdir(exist_ok=True)  # before launch, which blocks the data dir's entries
    return DocumentDesk(ledger, open_ingester, config.data_dir / UPLOADS, memory)


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
    with gr.Row(equal_height=True):
        c["doc_id"] = gr.Textbox(label="Document (click a row)", elem_id="doc-id", interactive=False, scale=3)
        c["reingest"] = gr.Button("Re-ingest", elem_id="doc-reingest", scale=1)
        c["remove"] = gr.Button("Remove", elem_id="doc-remove", variant="stop", scale=1)
        c["refresh"] = gr.Button("Refresh", elem_id="doc-refresh", scale=1)
    gr.Markdown("### Images (visual memory)")
    c["images"] = gr.Dataframe(headers=IMAGE_HEADERS, elem_id="images", interactive=False, wrap=True)
    _wire(gr, desk, c)
    return c


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
    c["reload"] = lambda: (desk.rows(), desk.images())
    c["reload_outputs"] = [c["table"], c["images"]]
