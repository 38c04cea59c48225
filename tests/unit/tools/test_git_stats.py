"""`git_stats` against real git in temporary repositories: answers, time windows, the allowlist, and the
hardening (hooks and an fsmonitor program configured in the repository never run)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from core.config_tools import GitStatsConfig
from core.errors import ToolError, ToolRetry
from core.tools.base import Tool
from core.tools.catalog import UnavailableTool
from core.tools.git_stats import git_env, git_stats_tool, run_git

CONFIG = GitStatsConfig(timeout_s=20.0, max_output_chars=4000)
AUTHORS = {"Ada": "ada@example.org", "Bob": "bob@example.org"}


def _git(repo: Path, *args: str, when: str = "2026-01-10T12:00:00", author: str = "Ada") -> str:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(repo.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": author,
        "GIT_AUTHOR_EMAIL": AUTHORS[author],
        "GIT_COMMITTER_NAME": author,
        "GIT_COMMITTER_EMAIL": AUTHORS[author],
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
    }
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def _commit(repo: Path, name: str, text: str, when: str, author: str = "Ada") -> None:
    target = repo / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    _git(repo, "add", name, when=when, author=author)
    _git(repo, "commit", "-q", "-m", f"edit {name}", when=when, author=author)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with four commits by two authors in January, February and March 2026."""
    root = tmp_path / "project"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _commit(root, "README.md", "hello\n", "2026-01-10T12:00:00")
    _commit(root, "src/app.py", "a = 1\nb = 2\n", "2026-02-03T09:00:00", author="Bob")
    _commit(root, "src/app.py", "a = 1\nb = 3\nc = 4\n", "2026-02-20T09:00:00")
    _commit(root, "docs/notes.md", "notes\n", "2026-03-05T18:30:00", author="Bob")
    return root


def _tool(*repos: Path, env: dict[str, str] | None = None) -> Tool:
    made = git_stats_tool(CONFIG, list(repos), env=env)
    assert isinstance(made, Tool), made
    return made


def test_log_lists_commits_newest_first_within_the_window(repo: Path) -> None:
    tool = _tool(repo)
    text = tool.fn(repo="project", question="log", since="2026-02-01", until="2026-02-28")
    lines = text.splitlines()
    assert lines[0] == "git log of project (since 2026-02-01 until 2026-02-28):"
    assert [line.split(" ", 2)[1:] for line in lines[1:]] == [
        ["2026-02-20", "Ada: edit src/app.py"],
        ["2026-02-03", "Bob: edit src/app.py"],
    ]


def test_shortlog_count_and_diffstat_answer_over_the_whole_history(repo: Path) -> None:
    tool = _tool(repo)
    shortlog = tool.fn(repo="project", question="shortlog")
    assert "2\tAda <ada@example.org>" in shortlog and "2\tBob <bob@example.org>" in shortlog
    assert tool.fn(repo="project", question="count", since="2026-02-01").endswith("\n3 commits")
    diffstat = tool.fn(repo="project", question="diffstat").splitlines()
    assert diffstat[1] == "4 commits, 3 files changed, +6 -1 lines"
    assert diffstat[2] == "  src/app.py: +4 -1"  # the most changed file first


def test_a_path_limits_the_question_to_that_part_of_the_tree(repo: Path) -> None:
    tool = _tool(repo)
    assert tool.fn(repo="project", question="count", path="src").endswith("\n2 commits")
    assert tool.fn(repo="project", question="count", path="nowhere").endswith("\n0 commits")


def test_show_gives_one_commits_changed_files_and_refuses_a_blob(repo: Path) -> None:
    tool = _tool(repo)
    text = tool.fn(repo="project", question="show", revision="HEAD~1")
    assert "edit src/app.py" in text and "src/app.py | 3 ++-" in text
    blob = _git(repo, "rev-parse", "HEAD:README.md").strip()
    assert "No such commit" in tool.fn(repo="project", question="show", revision=blob)  # no file contents
    with pytest.raises(ToolRetry):
        tool.fn(repo="project", question="show", revision="HEAD~3..HEAD")
    with pytest.raises(ToolRetry):
        tool.fn(repo="project", question="show", revision="--output=/tmp/x")


def test_an_empty_window_and_an_empty_repository_say_so(repo: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    _git(empty, "init", "-q")
    tool = _tool(repo, empty)
    assert tool.fn(repo="project", question="log", since="2030-01-01").endswith("No commits in that window.")
    assert "No such commit" in tool.fn(repo="empty", question="log")


def test_only_configured_repositories_are_reachable(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    _git(other, "init", "-q")
    tool = _tool(repo)
    with pytest.raises(ToolRetry, match="not one of the configured repositories: project"):
        tool.fn(repo="other")
    with pytest.raises(ToolRetry):
        tool.fn(repo=str(other))
    assert tool.fn(repo=str(repo), question="count").endswith("4 commits")  # its exact path works too


@pytest.mark.parametrize(
    "name", ["../other", "project/../other", "/x/../project", "..", "project\\..\\other"]
)
def test_a_repository_reached_through_dotdot_is_refused(repo: Path, name: str) -> None:
    with pytest.raises(ToolError, match=r"'\.\.'"):
        _tool(repo).fn(repo=name)


@pytest.mark.parametrize("path", ["../secret", "src/../../x", "/etc/passwd", ":(top)x", "~/x"])
def test_a_path_outside_the_repository_is_refused(repo: Path, path: str) -> None:
    with pytest.raises(ToolError, match="relative"):
        _tool(repo).fn(repo="project", question="log", path=path)


@pytest.mark.parametrize("since", ["--all", "last tuesday; rm", "2026-13", "soon"])
def test_a_time_window_must_be_a_date_or_an_age(repo: Path, since: str) -> None:
    with pytest.raises(ToolRetry, match="since"):
        _tool(repo).fn(repo="project", since=since)


def _arm_traps(repo: Path) -> Path:
    """A post-index-change hook and an fsmonitor program configured in the repository, each leaving a
    marker file when it runs."""
    marks = repo.parent / "marks"
    marks.mkdir()
    hook = repo / ".git" / "hooks" / "post-index-change"
    hook.write_text(f"#!/bin/sh\ntouch {marks}/hook\n")
    monitor = repo.parent / "fsmonitor.sh"
    monitor.write_text(f"#!/bin/sh\ntouch {marks}/fsmonitor\n")
    for program in (hook, monitor):
        program.chmod(0o755)
    _git(repo, "config", "core.fsmonitor", str(monitor))
    (repo / "README.md").touch()  # a stat change, so a status run refreshes (and writes) the index
    return marks


def test_hooks_and_fsmonitor_in_the_repository_never_run(repo: Path) -> None:
    marks = _arm_traps(repo)
    subprocess.run(["git", "-C", str(repo), "status"], capture_output=True, check=True)
    assert sorted(p.name for p in marks.iterdir()) == ["fsmonitor", "hook"]  # the traps are armed
    for mark in marks.iterdir():
        mark.unlink()
    (repo / "README.md").write_text("hello again\n")
    tool = _tool(repo)
    for question in ("log", "shortlog", "count", "diffstat", "show"):
        tool.fn(repo="project", question=question)
    # Even a command that refreshes the index, run through the hardened runner, springs neither trap.
    result = run_git("git", repo, ["status"], timeout_s=20, env=git_env(os.environ, repo))
    assert result.returncode == 0 and "README.md" in result.stdout
    assert list(marks.iterdir()) == []


def test_inherited_git_variables_do_not_redirect_git(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    _git(other, "init", "-q")
    env = {**os.environ, "GIT_DIR": str(other / ".git"), "GIT_CONFIG_PARAMETERS": "'core.fsmonitor'='x'"}
    assert _tool(repo, env=env).fn(repo="project", question="count").endswith("4 commits")


def test_a_directory_inside_no_repository_never_reaches_a_parent_one(repo: Path) -> None:
    inner = repo / "docs"  # inside the repository, but not a repository itself
    with pytest.raises(ToolError, match="not a git repository"):  # git stops at the ceiling
        _tool(inner).fn(repo="docs", question="count")


def test_output_is_bounded(repo: Path) -> None:
    small = git_stats_tool(GitStatsConfig(timeout_s=20.0, max_output_chars=100), [repo])
    assert isinstance(small, Tool)
    assert len(small.fn(repo="project", question="log")) <= 100
    result = run_git("git", repo, ["log"], timeout_s=20, env=git_env(os.environ, repo), max_bytes=50)
    assert result.truncated and len(result.stdout) == 50


def test_a_git_that_hangs_is_killed_at_the_timeout(repo: Path, tmp_path: Path) -> None:
    slow = tmp_path / "slow-git"
    slow.write_text("#!/bin/sh\nsleep 60\n")
    slow.chmod(0o755)
    result = run_git(str(slow), repo, ["log"], timeout_s=0.3, env=git_env(os.environ, repo))
    assert result.timed_out and result.returncode != 0


def test_unavailable_without_repositories_or_git(repo: Path, tmp_path: Path) -> None:
    none = git_stats_tool(CONFIG, [])
    assert isinstance(none, UnavailableTool) and "session.git_repos" in none.reason
    missing = git_stats_tool(CONFIG, [tmp_path / "gone"])
    assert isinstance(missing, UnavailableTool) and "exists" in missing.reason
    no_git = git_stats_tool(CONFIG, [repo], env={"PATH": str(tmp_path / "empty-bin")})
    assert isinstance(no_git, UnavailableTool) and "git" in no_git.reason


def test_a_revision_is_where_counting_starts_and_one_repository_needs_no_name(repo: Path) -> None:
    tool = _tool(repo)
    assert tool.fn(question="count", revision="HEAD~1").endswith("\n3 commits")
    assert tool.fn(question="log", revision="no-such-branch").endswith(
        "No such commit (the repository is empty or the revision does not exist)."
    )
