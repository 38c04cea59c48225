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
Commits are read and written in batches; the cancel token is checked between batches and the branch heads
are recorded only after a repository is complete, so a cancelled or crashed sync resumes where it stopped.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.errors import DaemonError, UserInputError
from core.tools.git_stats import GitResult, git_env, run_git
from knowledge.source_sync import (
    CancelToken,
    Progress,
    ProgressFn,
    RecordSink,
    SourceRecord,
    SyncReport,
    cancelled,
    record_id,
)
from knowledge.sync_ledger import SyncLedger

GIT_COMMITS = "git_commits"
BATCH = 100  # commits per `git log --no-walk` and per store write
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
    """The history sync of the configured repositories; `run()` may be called again and resumes."""

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

    def run(self, progress: ProgressFn | None = None, cancel: CancelToken | None = None) -> SyncReport:
        """Sync every configured repository; a failing one is reported and the others still sync."""
        if not self._repos:
            raise UserInputError("no repositories configured (session.git_repos in your config)")
        program = shutil.which(self._git or "git")
        if program is None:
            raise UserInputError("git is not installed (not found on PATH)")
        report = SyncReport("git")
        for repo in self._repos:
            if cancelled(cancel):
                report.cancelled = True
                break
            detail: dict[str, Any] = {"repo": str(repo), "added": 0, "tombstoned": 0, "rewritten": False}
            report.details.append(detail)
            try:
                self._sync_repo(
                    Git(program, repo, timeout_s=self._timeout_s), detail, report, progress, cancel
                )
            except GitFailed as error:
                detail["error"] = str(error)
                report.errors.append({"repo": str(repo), "error": str(error)})
        return report

    def _sync_repo(
        self,
        git: Git,
        detail: dict[str, Any],
        report: SyncReport,
        progress: ProgressFn | None,
        cancel: CancelToken | None,
    ) -> None:
        key = str(git.repo)
        heads, old = git.heads(), self._ledger.heads(key)
        incremental = bool(old) and self._fast_forward(git, old, heads)
        detail["rewritten"] = bool(old) and not incremental
        detail["branches"] = sorted(heads)
        listed = git.rev_list(sorted(set(heads.values())), sorted(set(old.values())) if incremental else ())
        stored = self._ledger.commits(key)
        missing = [sha for sha in listed if sha not in stored]
        report.unchanged += len(listed) - len(missing)
        for start in range(0, len(missing), BATCH):
            if cancelled(cancel):
                report.cancelled = True
                return
            self._store(git, missing[start : start + BATCH], detail, report)
            if progress is not None:
                done = min(start + BATCH, len(missing))
                progress(Progress(done, len(missing), 0, f"{git.repo.name}: {done}/{len(missing)} commits"))
        if not incremental:
            self._tombstone(key, set(listed), detail, report)
        self._ledger.set_heads(key, heads)

    @staticmethod
    def _fast_forward(git: Git, old: Mapping[str, str], heads: Mapping[str, str]) -> bool:
        """Whether every recorded branch still exists and only moved forward."""
        return all(
            branch in heads and (sha == heads[branch] or git.is_ancestor(sha, heads[branch]))
            for branch, sha in old.items()
        )

    def _store(self, git: Git, shas: Sequence[str], detail: dict[str, Any], report: SyncReport) -> None:
        now = self._clock()
        records = [self._record(git.repo, commit, now) for commit in git.commits(shas)]
        self._sink.upsert(GIT_COMMITS, records)
        self._ledger.add_commits(str(git.repo), {str(r.metadata["commit_hash"]): r.id for r in records})
        report.added += len(records)
        report.records += len(records)
        detail["added"] += len(records)

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

    def _tombstone(self, key: str, reachable: set[str], detail: dict[str, Any], report: SyncReport) -> None:
        gone = {sha: rid for sha, rid in self._ledger.commits(key).items() if sha not in reachable}
        if not gone:
            return
        at = self._clock()
        self._sink.mark(GIT_COMMITS, {rid: {"deleted_at": at} for rid in gone.values()})
        self._ledger.tombstone_commits(key, gone, at)
        report.deleted += len(gone)
        detail["tombstoned"] = len(gone)
