"""`sync obsidian | git` as a user runs them: real processes, a real vault and repository, the real store."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REPORT_KEYS = {
    "source",
    "added",
    "updated",
    "unchanged",
    "deleted",
    "records",
    "edges_added",
    "edges_ended",
    "skipped",
    "errors",
    "cancelled",
    "details",
}

pytestmark = pytest.mark.integration


def run_main(*args: str, tmp_path: Path, config: str = "") -> subprocess.CompletedProcess[str]:
    config_file = tmp_path / "config.yaml"
    config_file.write_text(config or "{}\n")
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config_file), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )


@pytest.mark.parametrize(
    ("source", "config", "message"),
    [
        ("obsidian", "", "no Obsidian vault configured"),
        ("obsidian", "obsidian:\n  vault: /nonexistent/vault\n", "is not a folder"),
        ("git", "", "no repositories configured"),
    ],
)
def test_an_unconfigured_source_is_one_error_line_and_exit_2(
    tmp_path: Path, source: str, config: str, message: str
) -> None:
    done = run_main("sync", source, "--json", tmp_path=tmp_path, config=config)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("error:") and message in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_sync_obsidian_then_git_print_one_report_each(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Plan.md").write_text("# Plan\nRepot the fig tree. [[Garden]] #todo\n")
    (vault / "Garden.md").write_text("The garden has a fig tree.\n")
    repo = tmp_path / "repo"
    if shutil.which("git") is None:
        pytest.skip("needs git")
    env = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "A"}
    env["GIT_COMMITTER_EMAIL"] = "a@x"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    (repo / "fig.txt").write_text("fig\n")
    subprocess.run(["git", "-C", str(repo), "add", "fig.txt"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", "Plant the fig"], check=True, env=env)
    config = f"obsidian:\n  vault: {vault}\nsession:\n  git_repos: [{repo}]\n"

    notes = run_main("sync", "obsidian", "--json", tmp_path=tmp_path, config=config)
    assert notes.returncode == 0, notes.stderr
    report = json.loads(notes.stdout)
    assert set(report) == REPORT_KEYS
    assert (report["source"], report["added"], report["edges_added"]) == ("obsidian", 2, 2)

    again = json.loads(run_main("sync", "obsidian", "--json", tmp_path=tmp_path, config=config).stdout)
    assert (again["added"], again["unchanged"]) == (0, 2)

    commits = run_main("sync", "git", "--json", tmp_path=tmp_path, config=config)
    assert commits.returncode == 0, commits.stderr
    assert json.loads(commits.stdout)["added"] == 1

    stats = run_main("memory", "stats", "--json", tmp_path=tmp_path, config=config)
    counts = json.loads(stats.stdout)["collections"]
    assert (counts["obsidian_notes"], counts["git_commits"]) == (2, 1)
