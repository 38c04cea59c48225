"""`ingest PATH... [--resume] [--background]` and `docs list|remove|reingest|jobs|cancel`: your documents.

`ingest` records a job over the files the paths name (a folder: its supported files) and runs it in a
worker thread (knowledge/jobs.py) while this thread draws a progress bar on stderr (tqdm, for long work:
several files or more than a megabyte) and turns Ctrl-C into a clean cancel: the file under way finishes,
the job stops and `ingest --resume` carries on where it stopped, as it does after a crash. `--json` prints
only the summary. `--background` records the job and hands it to a detached `ingest --resume` process.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from core.errors import UserInputError
from knowledge.documents.catalogue import list_documents, reingest_document, remove_document
from knowledge.documents.pipeline import DocumentIngester
from knowledge.documents.sources import collect
from knowledge.jobs import CANCELLED, ItemOutcome, JobItem, JobLedger, JobReport, JobRunner, Progress
from ui.shared.boundary import for_terminal
from ui.shared.payloads import print_json

INGEST = "ingest"
BAR_BYTES = 1024 * 1024  # a single file under this gets no progress bar: it is done before one would help
POLL_S = 0.2


@dataclass(frozen=True)
class IngestParts:
    """What `ingest` and `docs` work with, opened by the composition root: the ingester (over the memory
    store) is opened only by the commands that write or read documents; the ledger alone serves `docs
    jobs|cancel`."""

    ledger: JobLedger
    ingester: Callable[[], DocumentIngester]
    spawn_resume: Callable[[], int] | None = None  # starts a detached `ingest --resume`; returns its pid


def ingest_command(args: argparse.Namespace, parts: IngestParts) -> int:
    """`ingest`: new paths, `--resume` for interrupted jobs, `--background` to hand the job over."""
    if args.resume and args.paths:
        raise UserInputError("give either paths to ingest or --resume, not both")
    if not args.resume and not args.paths:
        raise UserInputError("name at least one file or folder to ingest (or --resume)")
    if args.resume:
        return _resume(parts, as_json=args.json)
    ingester = parts.ingester()
    settings = ingester.settings
    sources = collect(args.paths, settings.code_extensions, settings.skip_dirs)
    items = [JobItem(str(f.path), f.size) for f in sources.files]
    missing = [
        {"key": m, "state": "failed", "error": f"{m}: no such file or folder"} for m in sources.missing
    ]
    meta = {"paths": [str(p) for p in args.paths], "missing": missing, "passed_over": sources.passed_over}
    job_id = parts.ledger.create(INGEST, items, meta)
    if args.background:
        return _hand_over(parts, job_id, items, as_json=args.json)
    report = _run(parts.ledger, job_id, ingester, show_bar=not args.json)
    return _finish(report, missing, sources.passed_over, as_json=args.json)


def _resume(parts: IngestParts, *, as_json: bool) -> int:
    """Every interrupted ingest job, oldest first; `--json`: one object, `jobs` holding each summary."""
    jobs = parts.ledger.resumable(INGEST)
    if not jobs:
        if as_json:
            print_json({"jobs": []})
        else:
            print("nothing to resume")
        return 0
    ingester = parts.ingester()
    summaries, code = [], 0
    for job_id in jobs:
        report = _run(parts.ledger, job_id, ingester, show_bar=not as_json)
        meta = (parts.ledger.job(job_id) or {}).get("meta", {})
        summary = _summary(report, meta.get("missing", []), meta.get("passed_over", 0))
        summaries.append(summary)
        if not as_json:
            _print_summary(summary)
        code = max(code, _exit_code(summary))
    if as_json:
        print_json({"jobs": summaries})
    return code


def _hand_over(parts: IngestParts, job_id: str, items: Sequence[JobItem], *, as_json: bool) -> int:
    if parts.spawn_resume is None:
        raise UserInputError("--background is not available here")
    pid = parts.spawn_resume()
    summary = {
        "job_id": job_id,
        "state": "started",
        "pid": pid,
        "items": len(items),
        "bytes": sum(i.size for i in items),
    }
    if as_json:
        print_json(summary)
    else:
        print(
            f"job {job_id}: {len(items)} files in the background (pid {pid}); `docs jobs` shows its progress"
        )
    return 0


def _run(ledger: JobLedger, job_id: str, ingester: DocumentIngester, *, show_bar: bool) -> JobReport:
    """Run one job in a worker thread; this thread draws the bar and turns Ctrl-C into a cancel."""

    def process(item: JobItem) -> ItemOutcome:
        result = ingester.ingest_file(Path(item.key))
        return ItemOutcome(result.content_hash, result.to_json())

    handle = JobRunner(ledger).start(job_id, process)
    bar = ProgressBar(handle.progress()) if show_bar else None
    try:
        while True:
            try:
                report = handle.wait(POLL_S)
            except KeyboardInterrupt:
                handle.cancel()
                print("\nstopping after the file under way…", file=sys.stderr)
                continue
            if bar is not None:
                bar.show(handle.progress())
            if report is not None:
                return report
    finally:
        if bar is not None:
            bar.close()


class ProgressBar:
    """tqdm over bytes (over items when their sizes are unknown: commits) on the real stderr (the
    escape-stripping wrapper would flatten its redraws); the names it shows pass through `for_terminal`.
    Drawn only for long work. `sync obsidian|git` draws the same bar."""

    def __init__(self, first: Progress) -> None:
        self._bar: Any = None
        if first.items_total - first.items_done <= 1 and first.bytes_total - first.bytes_done < BAR_BYTES:
            return
        from tqdm import tqdm

        self._by_items = first.bytes_total == 0
        stream: TextIO = getattr(sys.stderr, "wrapped", sys.stderr)
        self._bar = tqdm(
            total=first.items_total if self._by_items else first.bytes_total,
            initial=first.items_done if self._by_items else first.bytes_done,
            unit="it" if self._by_items else "B",
            unit_scale=True,
            file=stream,
            disable=False,  # app/entry.py sets TQDM_DISABLE for the model loaders' bars, not for this one
            dynamic_ncols=True,
        )

    def show(self, progress: Progress) -> None:
        if self._bar is None:
            return
        self._bar.n = progress.items_done if self._by_items else progress.bytes_done
        name = Path(progress.current).name if progress.current else ""
        self._bar.set_description_str(
            for_terminal(f"{progress.items_done}/{progress.items_total} {name[:30]}"), refresh=False
        )
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _finish(
    report: JobReport, missing: Sequence[Mapping[str, Any]], passed_over: int, *, as_json: bool
) -> int:
    """Print one job's summary (one JSON object with `--json`) and return the exit code."""
    summary = _summary(report, missing, passed_over)
    if as_json:
        print_json(summary)
    else:
        _print_summary(summary)
    return _exit_code(summary)


def _summary(report: JobReport, missing: Sequence[Mapping[str, Any]], passed_over: int) -> dict[str, Any]:
    """A job's `--json` summary: its progress, counts per status and one entry per document."""
    ran = set(report.ran)
    entries = [*missing, *({**e, "this_run": e.get("key") in ran} for e in report.items)]
    counts: dict[str, int] = {}
    for entry in entries:
        status = _status(entry)
        counts[status] = counts.get(status, 0) + 1
    return {
        **report.progress.to_json(),
        "counts": counts,
        "resumed": report.resumed,
        "passed_over": passed_over,
        "documents": [_document(e) for e in entries],
    }


def _exit_code(summary: Mapping[str, Any]) -> int:
    """130 when the job was cancelled (saying how to go on), 2 when a document was refused, else 0."""
    if summary["state"] == CANCELLED:
        print(f"cancelled: `ingest --resume` continues job {summary['job_id']}", file=sys.stderr)
        return 130
    failed = summary["counts"].get("failed", 0)
    if failed:
        total = len(summary["documents"])
        print(f"error: {failed} of {total} documents could not be ingested", file=sys.stderr)
        return 2
    return 0


def _status(entry: Mapping[str, Any]) -> str:
    if entry.get("state") == "failed":
        return "failed"
    if entry.get("state") == "pending":
        return "pending"
    return str(entry.get("status", "done"))


def _document(entry: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in entry.items() if k not in ("key", "state")}
    return {"path": entry.get("key", ""), **out, "status": _status(entry)}


def _print_summary(summary: Mapping[str, Any]) -> None:
    for entry in summary["documents"]:
        status = entry["status"]
        if status == "failed":
            print(f"failed     {entry.get('error', '')}")
        elif status != "pending":
            kind = f"{entry.get('file_type', '')}, {entry.get('chunks', 0)} chunks"
            print(f"{status:<10} {entry.get('title', '')} ({kind}) {entry.get('path', '')}")
    totals = ", ".join(f"{n} {s}" for s, n in sorted(summary["counts"].items()))
    print(f"{totals or 'nothing to do'} in {summary['elapsed_s']:.1f} s")


def docs_command(args: argparse.Namespace, parts: IngestParts) -> int:
    """`docs list|remove|reingest|jobs|cancel`, by name in `DOCS_ACTIONS`."""
    return DOCS_ACTIONS[args.docs_command](args, parts)


def _cancel(args: argparse.Namespace, parts: IngestParts) -> int:
    if not parts.ledger.request_cancel(args.job):
        raise UserInputError(f"no running job {args.job!r}; `docs jobs` lists them")
    print(f"job {args.job} stops after the item under way")
    return 0


def _list_documents(args: argparse.Namespace, parts: IngestParts) -> int:
    entries = list_documents(parts.ingester().store)
    if args.json:
        print_json({"documents": [e.to_json() for e in entries], "total": len(entries)})
        return 0
    for e in entries:
        when = time.strftime("%Y-%m-%d", time.localtime(e.created_at))
        print(f"{e.document_id}  {e.title}  ({e.file_type}, {e.chunks} chunks, {when})  {e.file_path}")
    print(f"{len(entries)} documents")
    return 0


def _remove(args: argparse.Namespace, parts: IngestParts) -> int:
    ingester = parts.ingester()
    removed = remove_document(ingester.store, ingester, args.id)
    payload = {"document_id": args.id, "removed": removed}
    return _say(payload, f"removed {args.id} ({removed} records)", args.json)


def _reingest(args: argparse.Namespace, parts: IngestParts) -> int:
    ingester = parts.ingester()
    result = reingest_document(ingester.store, ingester, args.id)
    return _say(result.to_json(), f"{result.status}: {result.title} ({result.chunks} chunks)", args.json)


def _say(payload: dict[str, Any], line: str, as_json: bool) -> int:
    if as_json:
        print_json(payload)
    else:
        print(line)
    return 0


def _jobs(ledger: JobLedger, *, as_json: bool) -> int:
    jobs = ledger.jobs()
    if as_json:
        print_json({"jobs": jobs})
        return 0
    for job in jobs:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(job["created_at"]))
        print(
            f"{job['job_id']}  {job['kind']:<13} {job['state']:<10} "
            f"{job['items_done']}/{job['items_total']} items  "
            f"{job['bytes_done'] / 1e6:.1f}/{job['bytes_total'] / 1e6:.1f} MB  {when}"
        )
    if not jobs:
        print("no jobs")
    return 0


DocsAction = Callable[[argparse.Namespace, IngestParts], int]
DOCS_ACTIONS: dict[str, DocsAction] = {
    "list": _list_documents,
    "remove": _remove,
    "reingest": _reingest,
    "jobs": lambda args, parts: _jobs(parts.ledger, as_json=args.json),
    "cancel": _cancel,  # `cancel` has no --json: its one line is the answer
}
