"""What the source syncs (Obsidian vault, git history) share: the ports they write through, and `run_sync`,
which runs a sync as a job on the background job runner (knowledge/jobs.py).

This package never imports memory (docs/architecture.md), so records leave through `RecordSink`, which
the composition root implements over the memory service, and graph edits through `GraphEditor` (the knowledge
service).

A sync is a `SyncSource`: `plan()` compares the source with the sync ledger and lists the items to do (the
notes or commits to write, the notes to tombstone), which become a job's items; `processor` does one item
(its store write and graph edits) and hands back the item's sync-ledger rows, which commit in the same
transaction as the item's done mark. So the job's ledger is the one record of what is done: a cancelled job
(checked between items) has whole items only, and a job cut off by a crash is resumed by the next
`run_sync`, redoing none of its done items.
"""

from __future__ import annotations

import hashlib
import threading
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from knowledge.jobs import CANCELLED, JobItem, JobLedger, ProcessItem, Progress, run_job

if TYPE_CHECKING:
    from knowledge.graph import KnowledgeGraph

T = TypeVar("T")


@dataclass(frozen=True)
class SourceRecord:
    """One record for a memory collection: its id, the text to embed and its flat metadata."""

    id: str
    text: str
    metadata: Mapping[str, Any]


class RecordSink(Protocol):
    """Where synced records go (the memory service's collections)."""

    def upsert(self, collection: str, records: Sequence[SourceRecord]) -> None:
        """Store or replace records by id (embedding them)."""
        ...

    def mark(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> int:
        """Merge metadata changes into stored records (text and vector kept); returns how many changed."""
        ...


class GraphEditor(Protocol):
    """Serialised, persisted changes to the knowledge graph."""

    def edit(self, change: Callable[[KnowledgeGraph], T]) -> T:
        """Run `change` on the graph under its lock and save the graph if it changed."""
        ...


ProgressFn = Callable[[Progress], None]


@dataclass(frozen=True)
class SyncPlan:
    """A sync's work, found before its job is recorded: one item per note or commit to write (or note to
    tombstone), and what the job's meta keeps for its report (counts of unchanged items, skipped ones...)."""

    items: list[JobItem]
    meta: dict[str, Any] = field(default_factory=dict)


class SyncSource(Protocol):
    """A source sync as a job: `plan()` lists what to do, `processor` does one item at a time.

    Each item's outcome carries its detail (`action`: added, updated, unchanged, deleted, skipped; `records`,
    `edges_added`, `edges_ended`, `reason`) and its sync-ledger rows, written with the item's done mark."""

    name: str  # "obsidian" or "git": the report's source
    kind: str  # the job kind

    def identity(self) -> dict[str, Any]:
        """What the job's meta must hold for a job to be resumed by this sync (the vault, the repos)."""
        ...

    def plan(self) -> SyncPlan:
        """Compare the source with the ledger: the items to do."""
        ...

    def processor(
        self, job_id: str, meta: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
    ) -> ProcessItem:
        """The function doing one item of the job `job_id` (its meta and item rows as recorded)."""
        ...

    def describe(
        self, report: SyncReport, meta: Mapping[str, Any], done: Sequence[Mapping[str, Any]]
    ) -> None:
        """Add a job's `details` to the report (from its meta and the details of the items this run did)."""
        ...


@dataclass
class SyncReport:
    """What one sync did. `skipped` names each item left out and why; `cancelled` when stopped early."""

    source: str
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    records: int = 0
    edges_added: int = 0
    edges_ended: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)
    cancelled: bool = False
    details: list[dict[str, Any]] = field(default_factory=list)
    jobs: list[str] = field(default_factory=list)  # the jobs this run ran: resumed ones, then the new one

    def as_dict(self) -> dict[str, Any]:
        """The `sync … --json` object."""
        return {
            "source": self.source,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
            "records": self.records,
            "edges_added": self.edges_added,
            "edges_ended": self.edges_ended,
            "skipped": list(self.skipped),
            "errors": list(self.errors),
            "cancelled": self.cancelled,
            "details": list(self.details),
            "job_id": self.jobs[-1] if self.jobs else None,
            "jobs": list(self.jobs),
        }

    def tally(self, detail: Mapping[str, Any]) -> None:
        """Count one item's outcome."""
        action = detail.get("action", "")
        if action in ("added", "updated", "unchanged", "deleted"):
            setattr(self, action, getattr(self, action) + 1)
        if action == "skipped":
            self.skipped.append(
                {"path": str(detail.get("path", "")), "reason": str(detail.get("reason", ""))}
            )
        self.deleted += int(detail.get("tombstoned", 0))
        self.records += int(detail.get("records", 0))
        self.edges_added += int(detail.get("edges_added", 0))
        self.edges_ended += int(detail.get("edges_ended", 0))


def record_id(prefix: str, collection: str, *parts: object) -> str:
    """A stable record id `<prefix>_<20 hex>` from its parts, derived the way memory derives ids (NFKC,
    case-folded, whitespace collapsed): the same item always gets the same id, a re-sync adds nothing."""
    normal = [" ".join(unicodedata.normalize("NFKC", str(p)).casefold().split()) for p in parts]
    digest = hashlib.sha256("\x1f".join([collection, *normal]).encode("utf-8")).hexdigest()[:20]
    return f"{prefix}_{digest}"


def run_sync(
    source: SyncSource,
    jobs: JobLedger,
    *,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    resume_only: bool = False,
    on_job: Callable[[str], None] | None = None,
) -> SyncReport:
    """Resume the source's interrupted jobs (a crash or an error cut them short), then, unless
    `resume_only`, plan and run a new job over what is still to do. `on_job` hears each job id as it
    starts; `cancel` (or `docs cancel` from another process) stops the job under way between items."""
    report = SyncReport(source.name)
    cancel = cancel or threading.Event()
    for job_id in jobs.resumable(source.kind):
        info = jobs.job(job_id) or {}
        meta = info.get("meta", {})
        if any(meta.get(k) != v for k, v in source.identity().items()):
            jobs.set_state(job_id, CANCELLED)  # its vault or repositories are no longer configured
            continue
        _run(source, jobs, job_id, meta, report, progress, cancel, on_job, fresh=False)
        if report.cancelled:
            return report
    if not resume_only:
        plan = source.plan()
        meta = {**source.identity(), **plan.meta}
        job_id = jobs.create(source.kind, plan.items, meta)
        _run(source, jobs, job_id, meta, report, progress, cancel, on_job, fresh=True)
    return report


def _run(
    source: SyncSource,
    jobs: JobLedger,
    job_id: str,
    meta: Mapping[str, Any],
    report: SyncReport,
    progress: ProgressFn | None,
    cancel: threading.Event,
    on_job: Callable[[str], None] | None,
    *,
    fresh: bool,
) -> None:
    """Run one job and add what this run of it did to the report."""
    report.jobs.append(job_id)
    if on_job is not None:
        on_job(job_id)
    process = source.processor(job_id, meta, jobs.items(job_id))
    done = run_job(jobs, job_id, process, cancel=cancel, on_progress=progress)
    ran = set(done.ran)
    details = [item for item in done.items if item["key"] in ran]
    for item in details:
        report.tally(item)
        if item["state"] == "failed":
            report.errors.append({"path": item["key"], "error": str(item.get("error", ""))})
    if fresh:  # a resumed job's plan-time counts were the interrupted run's
        report.unchanged += int(meta.get("unchanged", 0))
        report.skipped.extend(meta.get("skipped", []))
        report.errors.extend(meta.get("errors", []))
    source.describe(report, meta, details)
    report.cancelled = report.cancelled or done.progress.state == CANCELLED
