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
from collections.abc import Callable
from typing import TextIO, TypedDict

from core.config import AppConfig
from knowledge.jobs import JOBS_FILE, JobLedger, Progress
from knowledge.source_sync import GraphEditor, SyncReport, SyncSource, run_sync
from memory.service import MemoryService
from ui.shared.payloads import print_json
from ui.shared.source_sync import MemorySink, build_source, check_configured, open_sync_ledger
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
