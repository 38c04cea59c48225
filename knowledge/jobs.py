"""Background jobs: long work over a list of items, with progress, cancellation and resumption after a crash.

Generic: a job is a `kind` ("ingest", "sync-obsidian", "sync-git") and an ordered list of
items, each a stable `key` (a resolved path, a commit hash) and a size in bytes for the progress. The
caller's `process(item)` does one item's work (its store write) and returns an `ItemOutcome`.

The ledger (`jobs.sqlite3` in the data folder, WAL, `synchronous=FULL`) records the job and each item's
state. An item is marked done *after* its work is stored, with its fingerprint (the content hash it was
done with), in one transaction. A crash (kill -9) between the store write and the mark leaves the item
pending; the resumed job does it again, and that second time is a no-op because the work itself is
idempotent (the document ingester finds the same content hash stored and writes nothing). A done item is
never done again by its job; so no item is done twice.

A caller may keep its own rows about each item in this database (`add_tables`; the source syncs' ledger
does, knowledge/sync_ledger.py) and hand them back in `ItemOutcome.ledger_writes`: they commit in the
transaction that marks the item done, so there is one record of "done".

`run_job` runs a job in the calling thread; `JobRunner` runs it in a worker thread (the chat keeps its own
thread; the memory service serialises each store call itself) and returns a `JobHandle` to watch
(`progress()`), cancel (`cancel()`: checked between items, the item under way finishes) and wait on.
Cancellation from another process (`request_cancel`, e.g. `docs cancel`) is read from the ledger between
items. Only one process holds a data folder (memory/lock.py), so when that process starts, every job
still marked running was cut off by a crash: `resumable()` lists them (and failed ones) to resume.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import DaemonError

logger = logging.getLogger(__name__)

JOBS_FILE = "jobs.sqlite3"
RUNNING, DONE, CANCELLED, FAILED = "running", "done", "cancelled", "failed"
PENDING = "pending"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY, kind TEXT NOT NULL, state TEXT NOT NULL, created_at REAL NOT NULL,
    updated_at REAL NOT NULL, meta TEXT NOT NULL DEFAULT '{}', cancel INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS job_items (
    job_id TEXT NOT NULL, position INTEGER NOT NULL, key TEXT NOT NULL, size INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending', fingerprint TEXT, detail TEXT, done_at REAL,
    PRIMARY KEY (job_id, key)
);
"""


@dataclass(frozen=True)
class JobItem:
    """One unit of a job: a stable key and its size in bytes (0 when unknown)."""

    key: str
    size: int = 0


Statement = tuple[str, Sequence[Any]]  # one SQL statement and its parameters


@dataclass(frozen=True)
class ItemOutcome:
    """What `process` did with an item: the fingerprint it was done with and a JSON-able detail.

    `ledger_writes` are the caller's own rows about the item (a source sync's note or commit row, in
    tables it added to this database): they commit in the transaction that marks the item done, so the
    item's "done" and the caller's record of it can never disagree after a crash."""

    fingerprint: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    ledger_writes: tuple[Statement, ...] = ()


@dataclass(frozen=True)
class Progress:
    """Where a job stands. `eta_s` is None until an item of this run has finished."""

    job_id: str
    kind: str
    items_total: int
    items_done: int  # done, failed or done before a resume
    bytes_total: int
    bytes_done: int
    failed: int = 0
    elapsed_s: float = 0.0
    eta_s: float | None = None
    current: str = ""
    state: str = RUNNING

    def to_json(self) -> dict[str, Any]:
        """The progress as `--json` and `docs jobs` show it."""
        return {
            "job_id": self.job_id,
            "kind": self.kind,
            "state": self.state,
            "items": {"done": self.items_done, "total": self.items_total, "failed": self.failed},
            "bytes": {"done": self.bytes_done, "total": self.bytes_total},
            "elapsed_s": round(self.elapsed_s, 3),
            "eta_s": None if self.eta_s is None else round(self.eta_s, 1),
        }


@dataclass(frozen=True)
class JobReport:
    """A finished (or cancelled) run: its final progress and one entry per item this job has finished."""

    progress: Progress
    items: tuple[Mapping[str, Any], ...]
    resumed: int = 0  # items already done before this run
    ran: tuple[str, ...] = ()  # keys of the items this run processed, in order


ProcessItem = Callable[[JobItem], ItemOutcome]


class JobLedger:
    """The jobs and their items' states, in SQLite; safe to share between threads."""

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self._clock = clock
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    def write(self, statements: Sequence[Statement]) -> None:
        """Run statements in one transaction (all or none)."""
        self._write(statements)

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query."""
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def add_tables(self, script: str) -> None:
        """Create a caller's own tables in this database (`CREATE TABLE IF NOT EXISTS` statements)."""
        with self._lock:
            self._db.executescript(script)

    def _write(self, statements: Sequence[Statement]) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in statements:
                    self._db.execute(sql, params)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def create(self, kind: str, items: Sequence[JobItem], meta: Mapping[str, Any] | None = None) -> str:
        """Record a new job over `items` (keys unique, order kept); returns its id."""
        job_id = f"job_{uuid.uuid4().hex[:12]}"
        now = self._clock()
        rows: list[Statement] = [
            ("INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?, 0)", (job_id, kind, RUNNING, now, now, _dump(meta)))
        ]
        unique = {item.key: item for item in items}
        rows += [
            (
                "INSERT INTO job_items (job_id, position, key, size) VALUES (?, ?, ?, ?)",
                (job_id, i, it.key, it.size),
            )
            for i, it in enumerate(unique.values())
        ]
        self._write(rows)
        return job_id

    def job(self, job_id: str) -> dict[str, Any] | None:
        """A job's row (kind, state, meta, created_at, updated_at, cancel), None when unknown."""
        with self._lock:
            row = self._db.execute(
                "SELECT kind, state, meta, created_at, updated_at, cancel FROM jobs WHERE job_id = ?",
                (job_id,),
            ).fetchone()
        if row is None:
            return None
        kind, state, meta, created, updated, cancel = row
        return {
            "job_id": job_id,
            "kind": kind,
            "state": state,
            "meta": json.loads(meta),
            "created_at": created,
            "updated_at": updated,
            "cancel": bool(cancel),
        }

    def items(self, job_id: str) -> list[dict[str, Any]]:
        """Every item of a job in order: key, size, state, fingerprint, detail."""
        with self._lock:
            rows = self._db.execute(
                "SELECT key, size, state, fingerprint, detail FROM job_items "
                "WHERE job_id = ? ORDER BY position",
                (job_id,),
            ).fetchall()
        return [
            {"key": k, "size": s, "state": st, "fingerprint": f or "", "detail": json.loads(d) if d else {}}
            for k, s, st, f, d in rows
        ]

    def mark(
        self,
        job_id: str,
        key: str,
        state: str,
        fingerprint: str,
        detail: Mapping[str, Any],
        also: Sequence[Statement] = (),
    ) -> None:
        """Record one item finished (`done` or `failed`), after its work was stored, together with the
        caller's own rows about it (`also`); one transaction."""
        now = self._clock()
        self._write(
            [
                *also,
                (
                    "UPDATE job_items SET state = ?, fingerprint = ?, detail = ?, done_at = ? "
                    "WHERE job_id = ? AND key = ? AND state = ?",
                    (state, fingerprint, _dump(detail), now, job_id, key, PENDING),
                ),
                ("UPDATE jobs SET updated_at = ? WHERE job_id = ?", (now, job_id)),
            ]
        )

    def set_state(self, job_id: str, state: str) -> None:
        """Record the job running, done, cancelled or failed (a resumed job is running again)."""
        self._write(
            [
                (
                    "UPDATE jobs SET state = ?, updated_at = ?, cancel = 0 WHERE job_id = ?",
                    (state, self._clock(), job_id),
                )
            ]
        )

    def request_cancel(self, job_id: str) -> bool:
        """Ask a running job (in any process) to stop after its current item; False when not running."""
        with self._lock:
            found = self._db.execute(
                "UPDATE jobs SET cancel = 1 WHERE job_id = ? AND state = ?", (job_id, RUNNING)
            ).rowcount
        return found > 0

    def cancel_requested(self, job_id: str) -> bool:
        """Whether `request_cancel` was called for this job."""
        with self._lock:
            row = self._db.execute("SELECT cancel FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        return bool(row and row[0])

    def jobs(self, kind: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """The newest jobs first, each with its counts (items total/done/failed, bytes total/done)."""
        where, params = ("WHERE j.kind = ?", (kind,)) if kind else ("", ())
        with self._lock:
            rows = self._db.execute(
                "SELECT j.job_id, j.kind, j.state, j.created_at, j.updated_at, COUNT(i.key), "
                "SUM(i.state != 'pending'), SUM(i.state = 'failed'), COALESCE(SUM(i.size), 0), "
                "COALESCE(SUM(CASE WHEN i.state != 'pending' THEN i.size ELSE 0 END), 0) "
                f"FROM jobs j LEFT JOIN job_items i ON i.job_id = j.job_id {where} "
                "GROUP BY j.job_id ORDER BY j.created_at DESC LIMIT ?",
                (*params, limit),
            ).fetchall()
        keys = (
            "job_id",
            "kind",
            "state",
            "created_at",
            "updated_at",
            "items_total",
            "items_done",
            "failed",
            "bytes_total",
            "bytes_done",
        )
        return [{k: (v if v is not None else 0) for k, v in zip(keys, row, strict=True)} for row in rows]

    def resumable(self, kind: str) -> list[str]:
        """Jobs of `kind` to resume, oldest first: those still marked running (cut off by a crash, when the
        caller holds the data folder) or failed (stopped by an unexpected error). Cancelled ones are not."""
        with self._lock:
            rows = self._db.execute(
                "SELECT job_id FROM jobs WHERE kind = ? AND state IN (?, ?) ORDER BY created_at",
                (kind, RUNNING, FAILED),
            ).fetchall()
        return [r[0] for r in rows]


def _dump(value: Mapping[str, Any] | None) -> str:
    return json.dumps(dict(value or {}), ensure_ascii=False, default=str)


class _Tracker:
    """Progress of one run: what was done before (a resume) and the pace of this run."""

    def __init__(self, job_id: str, kind: str, rows: Sequence[Mapping[str, Any]], clock: Callable[[], float]):
        self._clock = clock
        self._started = clock()
        finished = [r for r in rows if r["state"] != PENDING]
        self.resumed = len(finished)
        self._lock = threading.Lock()
        self._progress = Progress(
            job_id,
            kind,
            len(rows),
            len(finished),
            sum(int(r["size"]) for r in rows),
            sum(int(r["size"]) for r in finished),
            failed=sum(1 for r in finished if r["state"] == FAILED),
        )
        self._base_bytes = self._progress.bytes_done
        self._base_items = self._progress.items_done

    def snapshot(self) -> Progress:
        with self._lock:
            return self._progress

    def update(self, **changes: Any) -> Progress:
        with self._lock:
            p = self._progress
            values = {**p.__dict__, **changes, "elapsed_s": self._clock() - self._started}
            if values["bytes_total"] > 0:
                done_now = values["bytes_done"] - self._base_bytes
                remaining = values["bytes_total"] - values["bytes_done"]
            else:  # sizes unknown (commits): the pace in items
                done_now = values["items_done"] - self._base_items
                remaining = values["items_total"] - values["items_done"]
            values["eta_s"] = remaining * values["elapsed_s"] / done_now if done_now > 0 else None
            self._progress = Progress(**values)
            return self._progress


def run_job(
    ledger: JobLedger,
    job_id: str,
    process: ProcessItem,
    *,
    cancel: threading.Event | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
    tracker: _Tracker | None = None,
) -> JobReport:
    """Run (or resume) a job in this thread: its pending items in order, each marked after `process`.

    A `DaemonError` from `process` fails that item (its message recorded) and the job goes on; anything
    else fails the job (the item stays pending, so a resume retries it) and is raised."""
    info = ledger.job(job_id)
    if info is None:
        raise DaemonError(f"no job {job_id!r}")
    cancel = cancel or threading.Event()
    rows = ledger.items(job_id)
    tracker = tracker or _Tracker(job_id, info["kind"], rows, clock)
    ledger.set_state(job_id, RUNNING)
    state, ran = DONE, []
    try:
        for row in rows:
            if row["state"] != PENDING:
                continue
            if cancel.is_set() or ledger.cancel_requested(job_id):
                state = CANCELLED
                break
            _notify(on_progress, tracker.update(current=row["key"]))
            _one(ledger, job_id, JobItem(row["key"], int(row["size"])), process, tracker)
            ran.append(row["key"])
            _notify(on_progress, tracker.snapshot())
    except BaseException:
        ledger.set_state(job_id, FAILED)  # its pending items stay pending: `resumable` lists it
        raise
    ledger.set_state(job_id, state)
    final = tracker.update(state=state, current="")
    _notify(on_progress, final)
    done = tuple({"key": r["key"], "state": r["state"], **r["detail"]} for r in ledger.items(job_id))
    return JobReport(final, done, tracker.resumed, tuple(ran))


def _one(ledger: JobLedger, job_id: str, item: JobItem, process: ProcessItem, tracker: _Tracker) -> None:
    """Process one item and mark it: done with its outcome, or failed with the error's message."""
    try:
        outcome = process(item)
    except DaemonError as error:
        ledger.mark(job_id, item.key, FAILED, "", {"error": str(error)})
        p = tracker.snapshot()
        tracker.update(items_done=p.items_done + 1, bytes_done=p.bytes_done + item.size, failed=p.failed + 1)
        return
    ledger.mark(job_id, item.key, DONE, outcome.fingerprint, outcome.detail, outcome.ledger_writes)
    p = tracker.snapshot()
    tracker.update(items_done=p.items_done + 1, bytes_done=p.bytes_done + item.size)


def _notify(on_progress: Callable[[Progress], None] | None, progress: Progress) -> None:
    if on_progress is not None:
        on_progress(progress)


class JobHandle:
    """A job running in a worker thread: watch it, cancel it, wait for its report."""

    def __init__(self, job_id: str, tracker: _Tracker, cancel: threading.Event) -> None:
        self.job_id = job_id
        self._tracker = tracker
        self._cancel = cancel
        self._finished = threading.Event()
        self._report: JobReport | None = None
        self._error: BaseException | None = None

    def progress(self) -> Progress:
        """The job's progress now."""
        return self._tracker.snapshot()

    def cancel(self) -> None:
        """Stop after the item under way (it is finished and recorded, never left half done)."""
        self._cancel.set()

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    def wait(self, timeout: float | None = None) -> JobReport | None:
        """The report once the job has stopped (None if `timeout` ran out); a job's own failure is raised."""
        if not self._finished.wait(timeout):
            return None
        if self._error is not None:
            raise self._error
        return self._report

    def _run(
        self, ledger: JobLedger, process: ProcessItem, on_progress: Callable[[Progress], None] | None
    ) -> None:
        try:
            self._report = run_job(
                ledger,
                self.job_id,
                process,
                cancel=self._cancel,
                on_progress=on_progress,
                tracker=self._tracker,
            )
        except BaseException as error:  # noqa: BLE001 - handed to whoever waits
            logger.warning("job %s stopped: %s", self.job_id, error)
            self._error = error
        finally:
            self._finished.set()


class JobRunner:
    """Starts jobs in daemon worker threads (one thread per job)."""

    def __init__(self, ledger: JobLedger, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.ledger = ledger
        self._clock = clock

    def start(
        self, job_id: str, process: ProcessItem, on_progress: Callable[[Progress], None] | None = None
    ) -> JobHandle:
        """Run a recorded job (new or interrupted) in a worker thread."""
        info = self.ledger.job(job_id)
        if info is None:
            raise DaemonError(f"no job {job_id!r}")
        tracker = _Tracker(job_id, info["kind"], self.ledger.items(job_id), self._clock)
        handle = JobHandle(job_id, tracker, threading.Event())
        thread = threading.Thread(
            target=handle._run, args=(self.ledger, process, on_progress), name=f"job-{job_id}", daemon=True
        )
        thread.start()
        return handle
