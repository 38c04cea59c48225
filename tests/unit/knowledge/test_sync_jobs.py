"""Source syncs as jobs: a crash mid-sync resumed with no note or commit written twice, a cancel from
another connection, the sync ledger and the job ledger agreeing, and an older ledger file imported.

Real parts: real vault files and git repositories, the real memory service, graph store and SQLite ledger.
A "crash" is an unexpected exception from the store mid-item (the job is left failed with its item pending,
as a kill leaves it running); the SIGKILL of a real process is tests/integration/test_sync_process.py's.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from knowledge.git_history import GIT_COMMITS, SYNC_GIT, GitHistorySync
from knowledge.graph_store import GraphStore
from knowledge.jobs import CANCELLED, DONE, FAILED, ItemOutcome, JobItem, JobLedger, Progress, run_job
from knowledge.obsidian import LINKS_TO, OBSIDIAN_NOTES, SYNC_OBSIDIAN, ObsidianSync
from knowledge.service import KnowledgeService
from knowledge.source_sync import SourceRecord
from knowledge.sync_ledger import LEDGER_FILE, SyncLedger
from tests.unit.knowledge.sync_helpers import CountingSink, live, open_memory, records
from tests.unit.knowledge.test_git_history import Repo


class PowerCut(RuntimeError):
    """Not a DaemonError: the job stops failed, its item under way left pending (as a kill leaves it)."""


class CuttingSink(CountingSink):
    """Counts writes; the `cut_at`-th upsert call dies after writing (the ledger never hears of it)."""

    def __init__(self, service: Any, cut_at: int | None = None) -> None:
        super().__init__(service)
        self.cut_at = cut_at
        self.calls = 0

    def upsert(self, collection: str, records: Sequence[SourceRecord]) -> None:
        super().upsert(collection, records)
        self.calls += 1
        if self.calls == self.cut_at:
            raise PowerCut("the machine went down mid-note")

    def mark(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> int:
        return super().mark(collection, updates)


def make_vault(root: Path, count: int) -> Path:
    for i in range(count):
        link = f"[[Note {i + 1:02d}]]" if i + 1 < count else "[[Note 00]]"
        (root / f"Note {i:02d}.md").parent.mkdir(parents=True, exist_ok=True)
        (root / f"Note {i:02d}.md").write_text(f"# Note {i}\nAbout topic {i}. {link} #topic{i % 3}\n")
    return root


class Vault:
    def __init__(self, tmp_path: Path, count: int = 8, cut_at: int | None = None) -> None:
        self.root = make_vault(tmp_path / "vault", count)
        self.memory = open_memory()
        self.sink = CuttingSink(self.memory, cut_at)
        self.ledger = SyncLedger(tmp_path / "jobs.sqlite3")
        self.knowledge = KnowledgeService(GraphStore(tmp_path / "knowledge_graph.json"))
        self.sync = ObsidianSync(self.root, self.sink, self.ledger, self.knowledge)

    def agree(self) -> None:
        """Every done item of every sync job has its ledger row, and every live row a done item."""
        jobs = self.ledger.jobs
        done = {
            i["key"]
            for j in jobs.jobs(SYNC_OBSIDIAN)
            for i in jobs.items(j["job_id"])
            if i["state"] == DONE and i["detail"].get("action") in ("added", "updated")
        }
        rows = {path for path, e in self.ledger.notes().items() if e.deleted_at is None}
        assert done == rows


def test_a_sync_cut_off_mid_vault_is_resumed_by_the_next_one_and_no_note_is_written_twice(
    tmp_path: Path,
) -> None:
    vault = Vault(tmp_path, count=8, cut_at=4)  # dies after storing the 4th note, before its done mark
    with pytest.raises(PowerCut):
        vault.sync.run()
    (job,) = vault.ledger.jobs.jobs(SYNC_OBSIDIAN)
    assert (job["state"], job["items_done"]) == (FAILED, 3)
    first = list(vault.sink.upserted)
    vault.agree()  # the 4th note is in the store but neither in the sync ledger nor done

    vault.sink.reset()
    report = vault.sync.run()
    assert report.jobs[0] == job["job_id"] and report.added == 5  # the resumed job, then a new empty one
    redone = {r for r in vault.sink.upserted if r in first}
    fourth = {r.id for r in records(vault.memory, OBSIDIAN_NOTES) if r.metadata["file_path"] == "Note 03.md"}
    assert redone == fourth  # only the note cut off mid-write, under the same ids
    assert len(records(vault.memory, OBSIDIAN_NOTES)) == 8  # one record per note, none twice
    resumed = vault.ledger.jobs.job(job["job_id"])
    assert resumed is not None and resumed["state"] == DONE
    vault.agree()
    links = {(e.source, e.target) for e in vault.knowledge.graph.edges(relation=LINKS_TO)}
    assert len(links) == 8  # every note's edges, the cut-off one's included


def test_a_cancel_from_another_connection_stops_between_notes_each_note_whole(tmp_path: Path) -> None:
    vault = Vault(tmp_path, count=6)
    other = JobLedger(tmp_path / "jobs.sqlite3")  # `docs cancel` in another process
    asked: list[str] = []

    def progress(step: Progress) -> None:
        if step.items_done == 2 and not asked:
            asked.append(step.job_id)
            assert other.request_cancel(step.job_id)

    report = vault.sync.run(progress)
    assert report.cancelled and report.added == 2
    cancelled = other.job(report.jobs[-1])
    assert cancelled is not None and cancelled["state"] == CANCELLED
    stored = {r.metadata["file_path"] for r in records(vault.memory, OBSIDIAN_NOTES)}
    assert stored == set(vault.ledger.notes())  # whole notes only, each with its ledger row
    for path in stored:
        assert isinstance(path, str)
        node = f"note:{path.removesuffix('.md').casefold()}"
        assert vault.knowledge.graph.edges(node, LINKS_TO)  # and its edges
    vault.agree()
    rest = vault.sync.run()
    assert (rest.added, rest.unchanged, rest.cancelled) == (4, 2, False)
    assert len({r.metadata["file_path"] for r in live(vault.memory, OBSIDIAN_NOTES)}) == 6
    other.close()


def test_progress_counts_notes_and_bytes_with_an_eta(tmp_path: Path) -> None:
    vault = Vault(tmp_path, count=5)
    seen: list[Progress] = []
    vault.sync.run(seen.append)
    total = sum(p.stat().st_size for p in vault.root.iterdir())
    assert (seen[-1].items_total, seen[-1].bytes_total, seen[-1].bytes_done) == (5, total, total)
    assert any(p.eta_s is not None for p in seen)


def test_a_deleted_note_is_a_job_item_tombstoned_once(tmp_path: Path) -> None:
    vault = Vault(tmp_path, count=3)
    vault.sync.run()
    (vault.root / "Note 01.md").unlink()
    report = vault.sync.run()
    assert (report.deleted, report.unchanged) == (1, 2)
    items = vault.ledger.jobs.items(report.jobs[-1])
    assert [(i["key"], i["detail"]["action"]) for i in items] == [("Note 01.md", "deleted")]
    assert vault.sync.run().deleted == 0


def test_an_older_separate_ledger_is_imported_once(tmp_path: Path) -> None:
    old = tmp_path / LEDGER_FILE
    with sqlite3.connect(old) as db:
        db.executescript(
            "CREATE TABLE notes (path TEXT PRIMARY KEY, mtime REAL, size INTEGER, content_hash TEXT, "
            "record_ids TEXT, title TEXT, deleted_at REAL);"
            "CREATE TABLE git_heads (repo TEXT, branch TEXT, sha TEXT, PRIMARY KEY (repo, branch));"
            "CREATE TABLE git_commits (repo TEXT, sha TEXT, record_id TEXT, deleted_at REAL, "
            "PRIMARY KEY (repo, sha));"
        )
        db.execute("INSERT INTO notes VALUES ('A.md', 1.0, 3, 'h', '[\"note_1\"]', 'A', NULL)")
        db.execute("INSERT INTO git_heads VALUES ('/r', 'main', 'abc')")
        db.execute("INSERT INTO git_commits VALUES ('/r', 'abc', 'git_1', NULL)")
    db.close()
    jobs = JobLedger(tmp_path / "jobs.sqlite3")
    ledger = SyncLedger(jobs, legacy=old)
    assert ledger.notes()["A.md"].record_ids == ("note_1",)
    assert (ledger.heads("/r"), ledger.commits("/r")) == ({"main": "abc"}, {"abc": "git_1"})
    assert not old.exists() and (tmp_path / f"{LEDGER_FILE}.imported").exists()
    assert SyncLedger(jobs, legacy=old).notes().keys() == {"A.md"}
    jobs.close()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_backfill_cut_off_mid_history_resumes_and_stores_each_commit_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from knowledge import git_history

    monkeypatch.setattr(git_history, "BATCH", 2)
    repo = Repo(tmp_path / "repo")
    for i in range(5):
        repo.commit(f"Commit number {i}", {f"f{i}.txt": f"{i}\n"})
    memory = open_memory()
    sink = CuttingSink(memory, cut_at=3)
    ledger = SyncLedger(tmp_path / "jobs.sqlite3")
    sync = GitHistorySync([repo.path], sink, ledger)
    with pytest.raises(PowerCut):
        sync.run()
    assert ledger.heads(str(repo.path.resolve())) == {}  # heads only once every commit is stored
    first = list(sink.upserted)
    sink.reset()
    seen: list[Progress] = []
    report = sync.run(seen.append)
    assert report.added == 3 and set(sink.upserted) & set(first) == {first[-1]}  # only the cut-off one
    assert len(records(memory, GIT_COMMITS)) == 5
    assert ledger.heads(str(repo.path.resolve())) == {"main": repo.git("rev-parse", "HEAD")}
    (job,) = [j for j in ledger.jobs.jobs(SYNC_GIT) if j["job_id"] == report.jobs[0]]
    assert (job["state"], job["items_done"], job["items_total"]) == (DONE, 6, 6)  # 5 commits + heads
    assert seen[-1].eta_s is not None or seen[-1].items_done == seen[-1].items_total
    assert sync.run().added == 0


def test_a_failed_commit_keeps_the_old_heads_so_the_next_sync_lists_it_again(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    repo = Repo(tmp_path / "repo")
    repo.commit("One", {"a.txt": "a\n"})
    ledger = SyncLedger(tmp_path / "jobs.sqlite3")
    sync = GitHistorySync([repo.path], CountingSink(open_memory()), ledger)
    job = ledger.jobs.create(SYNC_GIT, [], {})
    key = str(repo.path.resolve())
    meta = {"heads": {key: {"heads": {"main": "f" * 40}, "incremental": False}}}
    process = sync.processor(job, meta, [{"key": f"{key}@{'0' * 40}", "state": "failed"}])
    outcome = process(JobItem(f"{key}@heads"))
    assert outcome.detail["kept_old_heads"] and outcome.ledger_writes == ()


def test_sync_jobs_share_the_ledger_with_ingest_jobs(tmp_path: Path) -> None:
    vault = Vault(tmp_path, count=2)
    vault.ledger.jobs.create("ingest", [], {})
    report = vault.sync.run()
    listed = {j["job_id"]: j for j in JobLedger(tmp_path / "jobs.sqlite3").jobs()}  # as `docs jobs` reads
    assert {j["kind"] for j in listed.values()} == {"ingest", SYNC_OBSIDIAN}
    assert listed[report.jobs[-1]]["items_done"] == 2


def test_an_items_own_rows_commit_with_its_done_mark_or_not_at_all(tmp_path: Path) -> None:
    jobs = JobLedger(tmp_path / "jobs.sqlite3")
    jobs.add_tables("CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY)")
    job = jobs.create("sync-test", [JobItem("a"), JobItem("b")], {})

    def process(item: JobItem) -> ItemOutcome:
        if item.key == "b":  # its row breaks the primary key: the mark must not commit without it
            return ItemOutcome("", {}, (("INSERT INTO seen VALUES (?)", ("a",)),))
        return ItemOutcome("", {}, (("INSERT INTO seen VALUES (?)", (item.key,)),))

    with pytest.raises(sqlite3.IntegrityError):
        run_job(jobs, job, process)
    assert [i["state"] for i in jobs.items(job)] == [DONE, "pending"]
    assert jobs.read("SELECT key FROM seen") == [("a",)]
    jobs.close()


def test_the_eta_of_items_without_sizes_follows_the_pace_in_items(tmp_path: Path) -> None:
    jobs = JobLedger(tmp_path / "jobs.sqlite3")
    job = jobs.create(SYNC_GIT, [JobItem(f"repo@{i}") for i in range(4)], {})
    ticks = iter(range(100))
    seen: list[Progress] = []
    run_job(jobs, job, lambda item: ItemOutcome(), on_progress=seen.append, clock=lambda: float(next(ticks)))
    after_one = next(p for p in seen if p.items_done == 1)
    assert after_one.bytes_total == 0 and after_one.eta_s == pytest.approx(3 * after_one.elapsed_s)
    jobs.close()
