"""`sync git`: the commit history of the user's repositories (`session.git_repos`) into `git_commits`.

One record per commit and repository (id from the repository's path and the commit's sha): its message,
author, date and what it changed (files, lines added and removed, the first files by name). Git runs
through `core.tools.git_stats.run_git` with its hardening (no hooks, no pager, no network, a clean
environment, a timeout, a bounded read); only shas git printed itself are passed back to it.

Backfill and incremental, per repository: the ledger keeps the last ingested commit of every local branch.
When each recorded head is an ancestor of its branch's head now, only the commits after them are read
(`rev-list new ^old`). Otherwise (an amend, a rebase, a reset, a deleted branch, the first run) every
commit the branches reach is listed; those not yet stored are added, and stored ones no branch reaches any
more are tombstoned (`deleted_at`: kept, never searched). Commits are keyed by sha, so a rewritten history
never leaves two live copies of a commit, and a commit made reachable again comes back under its old id.
A sync is a job (knowledge/source_sync.py): one item per commit to store (`<repo>@<sha>`, read from git a
batch ahead), then one per repository (`<repo>@heads`) that tombstones and records the branch heads. Each
commit's ledger row commits with its item's done mark, and the heads only once every commit before them is
stored, so a cancelled or crashed sync resumes where it stopped and never stores a commit twice.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.errors import DaemonError, UserInputError
from core.tools.git_stats import GitResult, git_env, run_git
from knowledge.jobs import ItemOutcome, JobItem
from knowledge.source_sync import (
    ProgressFn,
    RecordSink,
    SourceRecord,
    SyncPlan,
    SyncReport,
    record_id,
    run_sync,
)
from knowledge.sync_ledger import SyncLedger

GIT_COMMITS = "git_commits"
SYNC_GIT = "sync-git"  # the job kind
HEADS = "heads"  # the last item of each repository: `<repo>@heads`
_AT = "@"
BATCH = 100  # commits read per `git log --no-walk`
LIST_CAP_BYTES = 256 * 2**20  # rev-list prints 41 bytes a commit: room for millions
_SHA = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_FIELD, _RECORD = "\x1f", "\x1e"
_FORMAT = "%x1e%H%x1f%an%x1f%ct%x1f%s%x1f%b%x1f"
_SHOWN_FILES = 10


@dataclass(frozen=True)
class Commit:
    """One commit as `git log --numstat` describes it."""

    sha: str
    author: str
    committed_at: float
    subject: str
    body: str
    files: tuple[tuple[str, int, int], ...]  # (path, lines added, lines removed); binary files count 0

    @property
    def insertions(self) -> int:
        return sum(added for _, added, _ in self.files)

    @property
    def deletions(self) -> int:
        return sum(removed for _, _, removed in self.files)


class GitFailed(DaemonError):
    """A git command failed for one repository (the others still sync)."""


class Git:
    """The fixed, read-only git commands the history sync needs, over the hardened runner."""

    def __init__(self, program: str, repo: Path, *, timeout_s: float = 60.0) -> None:
        self.repo = repo
        self._program = program
        self._env = git_env(os.environ, repo)
        self._timeout_s = timeout_s

    def _run(self, args: Sequence[str], max_bytes: int = LIST_CAP_BYTES) -> GitResult:
        result = run_git(
            self._program, self.repo, args, timeout_s=self._timeout_s, env=self._env, max_bytes=max_bytes
        )
        if result.timed_out:
            raise GitFailed(f"git {args[0]} in {self.repo} took longer than {self._timeout_s:.0f} s")
        if result.truncated:
            raise GitFailed(f"git {args[0]} in {self.repo} printed more than {max_bytes:,} bytes")
        return result

    def _checked(self, args: Sequence[str]) -> str:
        result = self._run(args)
        if result.returncode != 0:
            first = next((ln for ln in result.stderr.splitlines() if ln.strip()), "git failed")
            raise GitFailed(f"{self.repo}: {first.removeprefix('fatal: ').strip()}")
        return result.stdout

    def heads(self) -> dict[str, str]:
        """Local branch -> the commit it points at."""
        out = self._checked(["for-each-ref", "--format=%(objecttype) %(objectname) %(refname)", "refs/heads"])
        heads = {}
        for line in out.splitlines():
            kind, sha, ref = (line.split(" ", 2) + ["", ""])[:3]
            if kind == "commit" and _SHA.match(sha):
                heads[ref.removeprefix("refs/heads/")] = sha
        return heads

    def is_ancestor(self, old: str, new: str) -> bool:
        """Whether commit `old` is reachable from `new` (False when `old` no longer exists)."""
        result = self._run(["merge-base", "--is-ancestor", "--end-of-options", old, new])
        return result.returncode == 0

    def rev_list(self, include: Sequence[str], exclude: Sequence[str] = ()) -> list[str]:
        """Commits reachable from `include` but not from `exclude`, oldest first."""
        if not include:
            return []
        args = ["rev-list", "--reverse", "--end-of-options", *include, *(f"^{sha}" for sha in exclude)]
        return [sha for sha in self._checked(args).split() if _SHA.match(sha)]

    def commits(self, shas: Sequence[str]) -> list[Commit]:
        """These commits with their changed files (no diff driver or text conversion runs)."""
        diff = ["--numstat", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-show-signature"]
        args = ["log", "--no-walk=unsorted", *diff, f"--format={_FORMAT}", "--end-of-options", *shas, "--"]
        return parse_log(self._checked(args))


def parse_log(text: str) -> list[Commit]:
    """Commits out of `git log --format=<_FORMAT> --numstat` output."""
    out = []
    for block in text.split(_RECORD)[1:]:
        parts = block.split(_FIELD)
        if len(parts) < 6 or not _SHA.match(parts[0]):
            continue
        sha, author, stamp, subject, body, numstat = (
            parts[0],
            parts[1],
            parts[2],
            parts[3],
            parts[4],
            parts[5],
        )
        files = []
        for line in numstat.strip().splitlines():
            cells = line.split("\t", 2)
            if len(cells) == 3:
                added, removed, name = cells
                files.append(
                    (name, int(added) if added.isdigit() else 0, int(removed) if removed.isdigit() else 0)
                )
        when = float(stamp) if stamp.strip().isdigit() else 0.0
        out.append(Commit(sha, author.strip(), when, subject.strip(), body.strip(), tuple(files)))
    return out


def commit_text(repo: str, commit: Commit) -> str:
    """What is embedded and shown for a commit: its message, then who, when and what it changed."""
    day = datetime.fromtimestamp(commit.committed_at, UTC).strftime("%Y-%m-%d")
    names = [name for name, _, _ in commit.files[:_SHOWN_FILES]]
    more = f" and {len(commit.files) - _SHOWN_FILES} more" if len(commit.files) > _SHOWN_FILES else ""
    changed = f"{len(commit.files)} files changed (+{commit.insertions} -{commit.deletions})"
    if names:
        changed += f": {', '.join(names)}{more}"
    message = f"{commit.subject}\n\n{commit.body}" if commit.body else commit.subject
    return f"{message}\n\n{repo} commit {commit.sha[:10]} by {commit.author} on {day}; {changed}"


class GitHistorySync:
    """The history sync of the configured repositories as a job (`knowledge.source_sync.SyncSource`): one
    item per commit to store, then one per repository recording its heads; `run()` may be called again."""

    name = "git"
    kind = SYNC_GIT

    def __init__(
        self,
        repos: Sequence[Path],
        sink: RecordSink,
        ledger: SyncLedger,
        *,
        git: str | None = None,
        timeout_s: float = 60.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._repos = [Path(r).expanduser().resolve() for r in repos]
        self._sink = sink
        self._ledger = ledger
        self._git = git
        self._timeout_s = timeout_s
        self._clock = clock

    def run(self, progress: ProgressFn | None = None, cancel: threading.Event | None = None) -> SyncReport:
        """Sync every configured repository; a failing one is reported and the others still sync."""
        return run_sync(self, self._ledger.jobs, progress=progress, cancel=cancel)

    def identity(self) -> dict[str, Any]:
        """The repositories: a job recorded for another list is not resumed."""
        return {"repos": [str(r) for r in self._repos]}

    def _program(self) -> str:
        if not self._repos:
            raise UserInputError("no repositories configured (session.git_repos in your config)")
        program = shutil.which(self._git or "git")
        if program is None:
            raise UserInputError("git is not installed (not found on PATH)")
        return program

    def plan(self) -> SyncPlan:
        """Per repository: the commits its branches reach that are not stored, then its heads item."""
        program = self._program()
        items: list[JobItem] = []
        meta: dict[str, Any] = {"unchanged": 0, "errors": [], "heads": {}, "details": []}
        for repo in self._repos:
            detail: dict[str, Any] = {"repo": str(repo), "added": 0, "tombstoned": 0, "rewritten": False}
            meta["details"].append(detail)
            try:
                items += self._plan_repo(Git(program, repo, timeout_s=self._timeout_s), detail, meta)
            except GitFailed as error:
                detail["error"] = str(error)
                meta["errors"].append({"repo": str(repo), "error": str(error)})
        return SyncPlan(items, meta)

    def _plan_repo(self, git: Git, detail: dict[str, Any], meta: dict[str, Any]) -> list[JobItem]:
        key = str(git.repo)
        heads, old = git.heads(), self._ledger.heads(key)
        incremental = bool(old) and self._fast_forward(git, old, heads)
        detail["rewritten"] = bool(old) and not incremental
        detail["branches"] = sorted(heads)
        listed = git.rev_list(sorted(set(heads.values())), sorted(set(old.values())) if incremental else ())
        stored = self._ledger.commits(key)
        missing = [sha for sha in listed if sha not in stored]
        meta["unchanged"] += len(listed) - len(missing)
        meta["heads"][key] = {"heads": heads, "incremental": incremental}
        return [JobItem(f"{key}{_AT}{sha}") for sha in missing] + [JobItem(f"{key}{_AT}{HEADS}")]

    @staticmethod
    def _fast_forward(git: Git, old: Mapping[str, str], heads: Mapping[str, str]) -> bool:
        """Whether every recorded branch still exists and only moved forward."""
        return all(
            branch in heads and (sha == heads[branch] or git.is_ancestor(sha, heads[branch]))
            for branch, sha in old.items()
        )

    def processor(
        self, job_id: str, meta: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
    ) -> Callable[[JobItem], ItemOutcome]:
        """Stores one commit per item (read from git a batch ahead); a repository's heads item records its
        heads, unless one of its commits failed (then the next sync lists the repository whole again)."""
        program = self._program()
        pending = [r["key"] for r in rows if r["state"] == "pending"]
        failed = {r["key"].rsplit(_AT, 1)[0] for r in rows if r["state"] == "failed"}
        cache: dict[str, Commit] = {}

        def process(item: JobItem) -> ItemOutcome:
            repo, sha = item.key.rsplit(_AT, 1)
            git = Git(program, Path(repo), timeout_s=self._timeout_s)
            try:
                if sha == HEADS:
                    return self._finish_repo(git, meta["heads"][repo], repo in failed)
                if sha not in cache:
                    ahead = _batch_from(pending, item.key, repo)
                    cache.clear()
                    cache.update((c.sha, c) for c in git.commits(ahead))
                return self._store(git.repo, repo, cache.pop(sha, None), sha)
            except GitFailed:
                failed.add(repo)
                raise

        return process

    def _store(self, path: Path, repo: str, commit: Commit | None, sha: str) -> ItemOutcome:
        if commit is None:
            raise GitFailed(f"{repo}: git did not describe commit {sha[:10]}")
        record = self._record(path, commit, self._clock())
        self._sink.upsert(GIT_COMMITS, [record])
        detail = {"repo": repo, "action": "added", "records": 1, "bytes": len(record.text.encode())}
        return ItemOutcome(sha, detail, tuple(SyncLedger.commit_rows(repo, {sha: record.id})))

    def _finish_repo(self, git: Git, planned: Mapping[str, Any], failed: bool) -> ItemOutcome:
        """Tombstone the commits no branch reaches (after a rewrite) and record the branch heads."""
        repo, heads = str(git.repo), dict(planned["heads"])
        if failed:
            return ItemOutcome("", {"repo": repo, "action": "heads", "kept_old_heads": True})
        rows, gone = [], {}
        if not planned["incremental"]:
            reachable = set(git.rev_list(sorted(set(heads.values()))))
            gone = {sha: rid for sha, rid in self._ledger.commits(repo).items() if sha not in reachable}
        if gone:
            at = self._clock()
            self._sink.mark(GIT_COMMITS, {rid: {"deleted_at": at} for rid in gone.values()})
            rows += SyncLedger.tombstone_rows(repo, gone, at)
        rows += SyncLedger.heads_rows(repo, heads)
        detail = {"repo": repo, "action": "heads", "tombstoned": len(gone)}
        return ItemOutcome("", detail, tuple(rows))

    def describe(
        self, report: SyncReport, meta: Mapping[str, Any], done: Sequence[Mapping[str, Any]]
    ) -> None:
        """One entry per repository: commits added and tombstoned by this run, rewritten or not."""
        for planned in meta.get("details", []):
            entry = dict(planned)
            mine = [d for d in done if d.get("repo") == entry["repo"] and d.get("state") == "done"]
            entry["added"] = sum(1 for d in mine if d.get("action") == "added")
            entry["tombstoned"] = sum(int(d.get("tombstoned", 0)) for d in mine)
            report.details.append(entry)

    def _record(self, repo: Path, commit: Commit, now: float) -> SourceRecord:
        meta = {
            "created_at": commit.committed_at,
            "updated_at": now,
            "source": "git",
            "external_id": commit.sha,
            "commit_hash": commit.sha,
            "repo": repo.name,
            "author": commit.author,
            "committed_at": commit.committed_at,
            "files_changed": len(commit.files),
            "insertions": commit.insertions,
            "deletions": commit.deletions,
        }
        return SourceRecord(
            record_id("git", GIT_COMMITS, str(repo), commit.sha), commit_text(repo.name, commit), meta
        )


def _batch_from(pending: Sequence[str], key: str, repo: str) -> list[str]:
    """The shas of this item and the next pending commits of its repository, `BATCH` at most."""
    start = pending.index(key) if key in pending else len(pending)
    ahead = [key.rsplit(_AT, 1)[1]]
    for other in pending[start + 1 :]:
        name, sha = other.rsplit(_AT, 1)
        if name != repo or sha == HEADS or len(ahead) >= BATCH:
            break
        ahead.append(sha)
    return ahead
