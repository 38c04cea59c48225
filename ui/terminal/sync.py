"""`sync obsidian | git [--resume]`: bring a knowledge source into memory now, as a background job.

The sync is a job on the job runner (knowledge/jobs.py, knowledge/source_sync.py): one item per note or
commit, recorded in the data folder's `jobs.sqlite3` with the sync ledger's rows. It runs in a worker
thread while this thread draws the same progress bar as `ingest` (items, bytes, ETA) and turns Ctrl-C
(or SIGTERM) into a clean cancel: the item under way finishes, the report says `cancelled: true`.
`docs jobs` lists sync jobs beside ingest jobs and `docs cancel JOB` stops one from another terminal.
A job cut off by a crash is resumed by the next `sync` of that source (first, before anything new) or
alone by `sync … --resume`; no note or commit is written twice. `--json` prints the report as one object
on stdout (`SyncReport.as_dict`, with the job ids).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO, TypedDict

from core.config import AppConfig
from core.errors import UserInputError
from knowledge.jobs import JOBS_FILE, JobLedger, Progress
from knowledge.source_sync import GraphEditor, SourceRecord, SyncReport, SyncSource, run_sync
from knowledge.sync_ledger import LEDGER_FILE, SyncLedger
from memory.service import MemoryService
from memory.vector_store import Record
from ui.terminal.chat import print_json
from ui.terminal.documents import ProgressBar

MemoryFactory = Callable[[], MemoryService]
POLL_S = 0.2


def sync_command(
    source: str,
    config: AppConfig,
    open_memory: MemoryFactory,
    open_graph: Callable[[], GraphEditor],
    *,
    as_json: bool,
    resume: bool = False,
) -> int:
    """`sync obsidian|git`: check the source is configured, open memory and the ledgers, run the job."""
    check_configured(source, config)
    memory = open_memory()
    ledger = open_sync_ledger(config, JobLedger(config.data_dir / JOBS_FILE))
    try:
        graph = open_graph() if source == "obsidian" else None
        sync = build_source(source, config, MemorySink(memory), ledger, graph)
        return run_in_worker(sync, ledger.jobs, as_json=as_json, resume=resume)
    finally:
        ledger.jobs.close()
        memory.close()


def open_sync_ledger(config: AppConfig, jobs: JobLedger) -> SyncLedger:
    """The sync tables in the data dir's job ledger (an older separate `sync_ledger.sqlite3` imported)."""
    return SyncLedger(jobs, legacy=config.data_dir / LEDGER_FILE)


def build_source(
    source: str, config: AppConfig, sink: MemorySink, ledger: SyncLedger, graph: GraphEditor | None
) -> SyncSource:
    """The configured vault's or repositories' sync."""
    if source == "obsidian":
        from knowledge.obsidian import ObsidianSync

        vault = config.obsidian
        assert vault.vault is not None
        return ObsidianSync(
            vault.vault, sink, ledger, graph, exclude=vault.exclude, max_note_bytes=vault.max_note_kb * 1024
        )
    from knowledge.git_history import GitHistorySync

    return GitHistorySync(config.session.git_repos, sink, ledger)


def check_configured(source: str, config: AppConfig) -> None:
    """A clear error when the source has no configuration (or its vault is not a folder)."""
    if source == "obsidian":
        vault = config.obsidian.vault
        if vault is None:
            raise UserInputError("no Obsidian vault configured: set obsidian.vault in your config file")
        if not vault.expanduser().is_dir():
            raise UserInputError(f"the Obsidian vault {vault} is not a folder (obsidian.vault)")
    elif not config.session.git_repos:
        raise UserInputError("no repositories configured: list them in session.git_repos in your config file")


class MemorySink:
    """`knowledge.source_sync.RecordSink` over the memory service (embeds, writes the store and the index)."""

    def __init__(self, service: MemoryService) -> None:
        self._service = service

    def upsert(self, collection: str, records: Sequence[SourceRecord]) -> None:
        """Store or replace the records by id."""
        if records:
            self._service.add(collection, [Record(r.id, r.text, dict(r.metadata)) for r in records])

    def mark(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> int:
        """Merge metadata changes (a tombstone) into stored records."""
        return self._service.update_metadata(collection, updates) if updates else 0


class _Watch:
    """The latest progress the worker reported, read by the drawing thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.latest: Progress | None = None
        self.first: dict[str, Progress] = {}  # each job's first report: where its bar starts
        self.started: list[str] = []

    def progress(self, progress: Progress) -> None:
        with self._lock:
            self.latest = progress
            self.first.setdefault(progress.job_id, progress)

    def job(self, job_id: str) -> None:
        with self._lock:
            self.started.append(job_id)

    def now(self) -> tuple[Progress | None, Progress | None]:
        """The latest report and the first one of its job."""
        with self._lock:
            latest = self.latest
            return latest, None if latest is None else self.first.get(latest.job_id)


class _Outcome(TypedDict, total=False):
    """What the worker thread leaves behind: its report, or the exception it ended with."""

    report: SyncReport
    error: BaseException


def run_in_worker(
    sync: SyncSource, jobs: JobLedger, *, as_json: bool, resume: bool = False, err: TextIO | None = None
) -> int:
    """Run the sync's jobs in a worker thread with a progress bar; Ctrl-C cancels; print the report."""
    err = err or sys.stderr
    watch, cancel = _Watch(), threading.Event()
    outcome: _Outcome = {}

    def work() -> None:
        try:
            outcome["report"] = run_sync(
                sync, jobs, progress=watch.progress, cancel=cancel, resume_only=resume, on_job=watch.job
            )
        except BaseException as error:  # re-raised in the main thread, where the CLI reports it
            outcome["error"] = error

    worker = threading.Thread(target=work, name="sync", daemon=True)
    worker.start()
    _draw(worker, watch, cancel, show=not as_json, err=err)
    if "error" in outcome:
        raise outcome["error"]
    return _print(outcome["report"], as_json)


def _draw(
    worker: threading.Thread, watch: _Watch, cancel: threading.Event, *, show: bool, err: TextIO
) -> None:
    """Until the worker ends: one bar per job (as `ingest` draws it), its id said when it starts."""
    bar: ProgressBar | None = None
    shown = ""
    try:
        while worker.is_alive():
            try:
                worker.join(POLL_S)
            except KeyboardInterrupt:
                cancel.set()
                err.write("\nstopping after the item under way…\n")
                continue
            progress, first = watch.now()
            if not show or progress is None or first is None:
                continue
            if progress.job_id != shown:
                if bar is not None:
                    bar.close()
                shown = progress.job_id
                err.write(f"{progress.kind} job {shown} (`docs cancel {shown}` stops it)\n")
                bar = ProgressBar(first)
            if bar is not None:
                bar.show(progress)
    finally:
        if bar is not None:
            bar.close()


def _print(report: SyncReport, as_json: bool) -> int:
    if as_json:
        print_json(report.as_dict())
        return 0
    stopped = " (stopped early; run it again to go on)" if report.cancelled else ""
    jobs = f" [job {', '.join(report.jobs)}]" if report.jobs else ""
    print(
        f"{report.source}: {report.added} added, {report.updated} updated, {report.unchanged} unchanged, "
        f"{report.deleted} deleted, {report.records} records written{stopped}{jobs}"
    )
    if report.edges_added or report.edges_ended:
        print(f"graph: {report.edges_added} edges added, {report.edges_ended} ended")
    for item in report.skipped:
        print(f"skipped {item['path']}: {item['reason']}")
    for item in report.errors:
        print(f"error: {item.get('repo') or item.get('path')}: {item['error']}", file=sys.stderr)
    return 1 if report.errors else 0
