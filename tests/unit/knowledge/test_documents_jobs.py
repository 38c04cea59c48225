"""Background jobs: progress, cancellation, resumption with no item done twice, and the ledger's states."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from core.errors import DaemonError, UserInputError
from knowledge.jobs import (
    CANCELLED,
    DONE,
    FAILED,
    ItemOutcome,
    JobItem,
    JobLedger,
    JobRunner,
    Progress,
    Statement,
    run_job,
)

ITEMS = [JobItem(f"/docs/{name}.md", size) for name, size in (("a", 100), ("b", 300), ("c", 600))]


class Ticks:
    """A clock that moves one second per reading (progress and ETA without wall-clock time)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[JobLedger]:
    opened = JobLedger(tmp_path / "jobs.sqlite3")
    yield opened
    opened.close()


def test_a_job_processes_every_item_once_in_order_and_reports_progress(ledger: JobLedger) -> None:
    seen: list[str] = []
    updates: list[Progress] = []
    job = ledger.create("ingest", ITEMS, {"paths": ["/docs"]})

    def process(item: JobItem) -> ItemOutcome:
        seen.append(item.key)
        return ItemOutcome(f"hash-{item.key}", {"status": "ingested"})

    report = run_job(ledger, job, process, on_progress=updates.append, clock=Ticks())
    assert seen == [i.key for i in ITEMS]
    assert report.progress.state == DONE and report.progress.items_done == 3
    assert report.progress.bytes_done == report.progress.bytes_total == 1000
    assert [i["state"] for i in report.items] == ["done"] * 3 and report.items[0]["status"] == "ingested"
    assert [i["fingerprint"] for i in ledger.items(job)] == [f"hash-{i.key}" for i in ITEMS]
    done_bytes = [u.bytes_done for u in updates]
    assert done_bytes == sorted(done_bytes) and done_bytes[-1] == 1000
    after_first = next(u for u in updates if u.bytes_done == 100)
    assert after_first.eta_s is not None and after_first.eta_s > 0
    row = ledger.job(job)
    assert row is not None and row["meta"] == {"paths": ["/docs"]}


def test_a_bad_item_fails_alone_and_the_job_goes_on(ledger: JobLedger) -> None:
    job = ledger.create("ingest", ITEMS)

    def process(item: JobItem) -> ItemOutcome:
        if item.key.endswith("b.md"):
            raise UserInputError("b.md: the PDF is damaged")
        return ItemOutcome("h")

    report = run_job(ledger, job, process)
    assert [i["state"] for i in report.items] == ["done", "failed", "done"]
    assert report.items[1]["error"] == "b.md: the PDF is damaged"
    assert report.progress.failed == 1 and report.progress.state == DONE


def test_a_crash_mid_job_resumes_at_the_first_unfinished_item(ledger: JobLedger, tmp_path: Path) -> None:
    job = ledger.create("ingest", ITEMS)
    calls: list[str] = []

    def crashing(item: JobItem) -> ItemOutcome:
        calls.append(item.key)
        if item.key.endswith("b.md"):
            raise RuntimeError("power cut")
        return ItemOutcome("h")

    with pytest.raises(RuntimeError):
        run_job(ledger, job, crashing)
    failed = ledger.job(job)
    assert failed is not None and failed["state"] == FAILED
    reopened = JobLedger(tmp_path / "jobs.sqlite3")  # a new process
    assert reopened.resumable("ingest") == [job]

    def healthy(item: JobItem) -> ItemOutcome:
        calls.append(item.key)
        return ItemOutcome("h")

    report = run_job(reopened, job, healthy)
    assert calls == ["/docs/a.md", "/docs/b.md", "/docs/b.md", "/docs/c.md"]  # a once; b retried once
    assert report.resumed == 1 and report.progress.state == DONE
    assert report.ran == ("/docs/b.md", "/docs/c.md")
    assert reopened.resumable("ingest") == []
    reopened.close()


def test_the_store_written_but_not_marked_item_is_redone_as_a_no_op(ledger: JobLedger) -> None:
    """kill -9 between an item's store write and its ledger mark: the resumed job does it again, and the
    work, being idempotent by content hash, adds nothing the second time."""
    store: dict[str, str] = {}
    job = ledger.create("ingest", ITEMS)
    real_mark = ledger.mark

    def mark_then_die(
        job_id: str,
        key: str,
        state: str,
        fingerprint: str,
        detail: Mapping[str, Any],
        also: Sequence[Statement] = (),
    ) -> None:
        if key.endswith("b.md"):
            raise KeyboardInterrupt  # the process dies after the write, before the mark
        real_mark(job_id, key, state, fingerprint, detail, also)

    def process(item: JobItem) -> ItemOutcome:
        status = "unchanged" if store.get(item.key) == "v1" else "ingested"
        store[item.key] = "v1"
        return ItemOutcome("v1", {"status": status})

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ledger, "mark", mark_then_die)
        with pytest.raises(KeyboardInterrupt):
            run_job(ledger, job, process)
    report = run_job(ledger, job, process)
    assert [(i["key"][-4:], i.get("status")) for i in report.items] == [
        ("a.md", "ingested"),
        ("b.md", "unchanged"),
        ("c.md", "ingested"),
    ]


def test_cancel_stops_between_items_and_resume_finishes(ledger: JobLedger) -> None:
    job = ledger.create("ingest", ITEMS)
    cancel = threading.Event()

    def process(item: JobItem) -> ItemOutcome:
        cancel.set()  # the user cancels while the first item runs: it is finished, nothing more
        return ItemOutcome("h")

    report = run_job(ledger, job, process, cancel=cancel)
    assert report.progress.state == CANCELLED and report.progress.items_done == 1
    assert ledger.resumable("ingest") == []  # a cancelled job is not resumed on its own
    finished = run_job(ledger, job, lambda item: ItemOutcome("h"))
    assert finished.progress.state == DONE and finished.resumed == 1


def test_another_process_can_cancel_a_running_job_through_the_ledger(
    ledger: JobLedger, tmp_path: Path
) -> None:
    job = ledger.create("ingest", ITEMS)
    other = JobLedger(tmp_path / "jobs.sqlite3")

    def process(item: JobItem) -> ItemOutcome:
        assert other.request_cancel(job)
        return ItemOutcome("h")

    assert run_job(ledger, job, process).progress.state == CANCELLED
    assert not other.request_cancel(job)  # no longer running
    other.close()


def test_the_runner_works_in_a_thread_while_the_caller_stays_free(ledger: JobLedger) -> None:
    job = ledger.create("ingest", ITEMS)
    gate = threading.Event()

    def process(item: JobItem) -> ItemOutcome:
        gate.wait(10)  # the job cannot finish until the caller's own work is done
        return ItemOutcome("h")

    handle = JobRunner(ledger).start(job, process)
    assert handle.wait(0.05) is None and not handle.done
    assert handle.progress().items_done == 0  # the caller reads the progress meanwhile
    gate.set()
    report = handle.wait(10)
    assert report is not None and report.progress.items_done == 3
    assert ledger.jobs()[0]["items_done"] == 3 and ledger.jobs()[0]["bytes_done"] == 1000


def test_a_job_failure_is_raised_to_whoever_waits(ledger: JobLedger) -> None:
    job = ledger.create("ingest", ITEMS[:1])

    def broken(item: JobItem) -> ItemOutcome:
        raise RuntimeError("bug")

    with pytest.raises(RuntimeError, match="bug"):
        JobRunner(ledger).start(job, broken).wait(10)
    with pytest.raises(DaemonError, match="no job"):
        JobRunner(ledger).start("job_missing", broken)
