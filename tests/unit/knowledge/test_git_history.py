"""`sync git` on a temporary repository: real git processes, the real memory service and ledger."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from core.errors import UserInputError
from knowledge import git_history
from knowledge.git_history import GIT_COMMITS, GitHistorySync, parse_log
from knowledge.jobs import Progress
from knowledge.sync_ledger import SyncLedger
from memory.service import MemoryService
from tests.unit.knowledge.sync_helpers import CountingSink, live, open_memory, records, search_ids

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
T0 = 1_700_000_000


class Repo:
    """A repository driven through the git command line, with fixed identities and dates."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tick = 0
        path.mkdir(parents=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        stamp = f"@{T0 + self.tick} +0000"
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(self.path),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Ada Lovelace",
            "GIT_AUTHOR_EMAIL": "ada@example.org",
            "GIT_COMMITTER_NAME": "Ada Lovelace",
            "GIT_COMMITTER_EMAIL": "ada@example.org",
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_DATE": stamp,
        }
        done = subprocess.run(
            ["git", "-C", str(self.path), *args], env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    def commit(self, message: str, files: dict[str, str]) -> str:
        self.tick += 60
        for name, text in files.items():
            target = self.path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            self.git("add", name)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "garden-app")
    repo.commit("Start the garden planner", {"README.md": "garden\n"})
    repo.commit("Add watering schedule\n\nWater tomatoes every two days.", {"water.py": "a\nb\nc\n"})
    repo.commit("Track compost ratio", {"compost.py": "ratio = 3\n", "README.md": "garden\ncompost\n"})
    return repo


class Parts:
    def __init__(self, repos: list[Path], tmp_path: Path) -> None:
        self.memory: MemoryService = open_memory()
        self.sink = CountingSink(self.memory)
        self.ledger = SyncLedger(tmp_path / "sync_ledger.sqlite3")
        self.sync = GitHistorySync(repos, self.sink, self.ledger, clock=lambda: float(T0 + 10_000))

    def live_shas(self) -> list[str]:
        return sorted(str(r.metadata["commit_hash"]) for r in live(self.memory, GIT_COMMITS))


@pytest.fixture
def parts(repo: Repo, tmp_path: Path) -> Parts:
    return Parts([repo.path], tmp_path)


def reachable(repo: Repo) -> list[str]:
    return sorted(repo.git("rev-list", "--branches").split())


def test_backfill_stores_each_commit_with_message_author_date_and_change_stat(
    parts: Parts, repo: Repo
) -> None:
    report = parts.sync.run()
    assert report.added == 3 and not report.errors
    assert parts.live_shas() == reachable(repo)
    compost = next(r for r in records(parts.memory, GIT_COMMITS) if r.text.startswith("Track compost ratio"))
    meta = compost.metadata
    assert (meta["author"], meta["repo"], meta["committed_at"]) == ("Ada Lovelace", "garden-app", T0 + 180)
    assert (meta["files_changed"], meta["insertions"], meta["deletions"]) == (2, 2, 0)
    assert "2 files changed (+2 -0): README.md, compost.py" in compost.text
    watering = next(r for r in records(parts.memory, GIT_COMMITS) if r.text.startswith("Add watering"))
    assert "Water tomatoes every two days." in watering.text
    assert search_ids(parts.memory, "watering schedule tomatoes", GIT_COMMITS)[0] == watering.id


def test_new_commits_alone_are_read_on_the_next_sync(parts: Parts, repo: Repo) -> None:
    parts.sync.run()
    parts.sink.reset()
    assert parts.sync.run().added == 0
    assert parts.sink.upserted == []
    new = repo.commit("Add pest log", {"pests.md": "aphids\n"})
    report = parts.sync.run()
    assert report.added == 1 and not report.details[0]["rewritten"]
    assert [
        r.metadata["commit_hash"] for r in parts.memory.store.get(GIT_COMMITS, ids=parts.sink.upserted)
    ] == [new]


def test_an_amended_commit_replaces_the_old_one_without_duplicates(parts: Parts, repo: Repo) -> None:
    parts.sync.run()
    old = repo.git("rev-parse", "HEAD")
    repo.tick += 5
    repo.git("commit", "-q", "--amend", "-m", "Track compost ratio and turning")
    report = parts.sync.run()
    assert report.details[0]["rewritten"] and (report.added, report.deleted) == (1, 1)
    assert parts.live_shas() == reachable(repo)
    gone = [r for r in records(parts.memory, GIT_COMMITS) if r.metadata["commit_hash"] == old]
    assert gone and gone[0].metadata["deleted_at"] == T0 + 10_000  # kept, tombstoned
    assert gone[0].id not in search_ids(parts.memory, "Track compost ratio", GIT_COMMITS)


def test_a_rebase_and_a_reset_resync_by_sha(parts: Parts, repo: Repo) -> None:
    repo.git("checkout", "-q", "-b", "feature", "HEAD~1")
    repo.commit("Feature: frost alerts", {"frost.py": "x\n"})
    parts.sync.run()
    assert parts.live_shas() == reachable(repo)
    repo.git("rebase", "-q", "main")  # the feature commit gets a new sha on top of main
    parts.sync.run()
    assert parts.live_shas() == reachable(repo)
    assert len(parts.live_shas()) == 4
    repo.git("checkout", "-q", "main")
    repo.git("branch", "-q", "-D", "feature")
    repo.git("reset", "-q", "--hard", "HEAD~1")
    report = parts.sync.run()
    assert parts.live_shas() == reachable(repo) and len(reachable(repo)) == 2
    assert report.deleted == 2
    repo.git("reset", "-q", "--hard", "ORIG_HEAD")  # the compost commit is reachable again: same id, live
    parts.sync.run()
    assert len(parts.live_shas()) == 3
    assert len(records(parts.memory, GIT_COMMITS)) == 5  # every sha stored once


def test_a_path_that_is_no_repository_is_reported_and_the_others_still_sync(
    repo: Repo, tmp_path: Path
) -> None:
    plain = tmp_path / "not-a-repo"
    plain.mkdir()
    parts = Parts([plain, repo.path], tmp_path)
    report = parts.sync.run()
    assert report.added == 3
    assert [e["repo"] for e in report.errors] == [str(plain)]
    assert "not a git repository" in report.errors[0]["error"]


def test_a_cancelled_backfill_resumes_without_storing_a_commit_twice(
    parts: Parts, repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(git_history, "BATCH", 1)
    cancel = threading.Event()

    def progress(step: Progress) -> None:
        if step.items_done == 2:
            cancel.set()

    first = parts.sync.run(progress, cancel)
    assert first.cancelled and first.added == 2
    stored = set(parts.sink.upserted)
    parts.sink.reset()
    rest = parts.sync.run()
    assert rest.added == 1 and not set(parts.sink.upserted) & stored
    assert parts.live_shas() == reachable(repo)


def test_no_configured_repository_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="session.git_repos"):
        Parts([], tmp_path).sync.run()


def test_the_log_parser_reads_binary_files_and_messages_with_tabs() -> None:
    sha = "a" * 40
    text = (
        f"\x1e{sha}\x1fBo\x1f1700000000\x1fsubject\twith tab\x1fbody\x1f\n\n3\t1\tsrc/a.py\n-\t-\tlogo.png\n"
    )
    (commit,) = parse_log(text)
    assert commit.files == (("src/a.py", 3, 1), ("logo.png", 0, 0))
    assert (commit.subject, commit.body, commit.insertions) == ("subject\twith tab", "body", 3)
