"""Commits since the last session, read from a real local repository."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from knowledge.git_changes import GitChanges, commits_since


def git(repo: Path, *args: str, when: int | None = None) -> None:
    env = {
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "a@example.org",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "a@example.org",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin",
    }
    if when is not None:
        env |= {"GIT_AUTHOR_DATE": f"@{when} +0000", "GIT_COMMITTER_DATE": f"@{when} +0000"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def test_only_commits_after_the_last_session_are_listed(tmp_path: Path) -> None:
    repo = tmp_path / "garden"
    repo.mkdir()
    git(repo, "init", "-q")
    now = int(time.time())
    for i, (message, when) in enumerate([("Plan the beds", now - 7200), ("Add the fence", now - 60)]):
        (repo / f"f{i}.txt").write_text(message)
        git(repo, "add", ".")
        git(repo, "commit", "-q", "-m", message, when=when)
    lines = commits_since(repo, since=now - 3600)
    assert len(lines) == 1 and "Add the fence" in lines[0] and "Ada" in lines[0]
    changes = GitChanges([repo, tmp_path / "not-a-repo"])
    assert [line.split(": ", 1)[0] for line in changes(now - 3600)] == ["garden"]
    assert changes(None) == []  # no previous session: nothing is "new since"
