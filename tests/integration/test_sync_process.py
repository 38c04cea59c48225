"""`sync obsidian | git` as a user runs them: real processes, a real vault and repository, the real store."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
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
    "job_id",
    "jobs",
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


def sync_items(data: Path, kind: str) -> list[tuple[str, str, str, float | None]]:
    """(job, key, state, done_at) of every item of the sync jobs, read as `docs jobs` reads them."""
    try:
        with sqlite3.connect(f"file:{data / 'jobs.sqlite3'}?mode=ro", uri=True, timeout=5) as db:
            return db.execute(
                "SELECT i.job_id, i.key, i.state, i.done_at FROM job_items i JOIN jobs j USING (job_id) "
                "WHERE j.kind = ? ORDER BY i.position",
                (kind,),
            ).fetchall()
    except sqlite3.OperationalError:  # the writer is creating it
        return []


def kill_when_done(command: list[str], tmp_path: Path, kind: str, at_least: int) -> None:
    """Start `command` and SIGKILL it once `at_least` of its job's items are done (never after its end)."""
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data")}
    job = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path
    )
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and job.poll() is None:
            if sum(state == "done" for _, _, state, _ in sync_items(tmp_path / "data", kind)) >= at_least:
                break
            time.sleep(0.02)
        assert job.poll() is None, "the sync ended before it could be killed"
        os.kill(job.pid, signal.SIGKILL)
        job.wait(30)
    finally:
        if job.poll() is None:
            job.kill()


def make_repo(path: Path, commits: int) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "A"}
    env["GIT_COMMITTER_EMAIL"] = "a@x"
    subprocess.run(["git", "init", "-q", str(path)], check=True, env=env)
    for i in range(commits):
        (path / "log.txt").write_text(f"entry {i}\n")
        subprocess.run(["git", "-C", str(path), "add", "log.txt"], check=True, env=env)
        subprocess.run(["git", "-C", str(path), "commit", "-q", "-m", f"Entry {i}"], check=True, env=env)


@pytest.mark.slow
@pytest.mark.parametrize("source", ["obsidian", "git"])
def test_kill_9_mid_sync_then_resume_writes_every_item_once(tmp_path: Path, source: str) -> None:
    if source == "git" and shutil.which("git") is None:
        pytest.skip("needs git")
    total = 120
    vault, repo = tmp_path / "vault", tmp_path / "repo"
    if source == "obsidian":
        vault.mkdir()
        for i in range(total):
            (vault / f"Note {i:03d}.md").write_text(
                f"# Note {i}\nTopic {i}. [[Note {(i + 1) % total:03d}]] #t{i % 5}\n"
            )
    else:
        make_repo(repo, total)
    config = f"obsidian:\n  vault: {vault}\nsession:\n  git_repos: [{repo}]\n"
    (tmp_path / "config.yaml").write_text(config)
    kind = f"sync-{source}"
    main = [sys.executable, str(ROOT / "main.py"), "--config", str(tmp_path / "config.yaml")]
    kill_when_done([*main, "sync", source, "--json"], tmp_path, kind, at_least=3)
    before = {key: at for _, key, state, at in sync_items(tmp_path / "data", kind) if state == "done"}
    assert 3 <= len(before) < total

    listed = json.loads(run_main("docs", "jobs", "--json", tmp_path=tmp_path, config=config).stdout)["jobs"]
    (cut,) = [j for j in listed if j["kind"] == kind]
    assert (cut["state"], cut["items_done"]) == ("running", len(before))  # cut off: resumable

    resumed = run_main("sync", source, "--resume", "--json", tmp_path=tmp_path, config=config)
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["jobs"] == [cut["job_id"]]
    assert report["added"] == total - len(before)  # the items done before the kill are not done again
    after = {key: at for _, key, state, at in sync_items(tmp_path / "data", kind)}
    assert all(after[key] == at for key, at in before.items())

    stats = run_main("memory", "stats", "--json", tmp_path=tmp_path, config=config)
    collection = "obsidian_notes" if source == "obsidian" else "git_commits"
    assert json.loads(stats.stdout)["collections"][collection] == total  # one record each, none twice
    again = json.loads(run_main("sync", source, "--json", tmp_path=tmp_path, config=config).stdout)
    assert again["added"] == 0 and again["jobs"] == [again["job_id"]]  # nothing left to resume


@pytest.mark.slow
def test_docs_cancel_stops_a_running_sync_between_notes_and_the_next_sync_goes_on(tmp_path: Path) -> None:
    total = 120
    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(total):
        (vault / f"Note {i:03d}.md").write_text(f"# Note {i}\nTopic {i}. [[Note {(i + 1) % total:03d}]]\n")
    config = f"obsidian:\n  vault: {vault}\n"
    (tmp_path / "config.yaml").write_text(config)
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data")}
    command = [sys.executable, str(ROOT / "main.py"), "--config", str(tmp_path / "config.yaml")]
    sync = subprocess.Popen(
        [*command, "sync", "obsidian", "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and sync.poll() is None:
            rows = sync_items(tmp_path / "data", "sync-obsidian")
            if sum(state == "done" for _, _, state, _ in rows) >= 2:
                break
            time.sleep(0.02)
        assert sync.poll() is None, "the sync ended before it could be cancelled"
        job_id = rows[0][0]
        cancel = run_main("docs", "cancel", job_id, tmp_path=tmp_path, config=config)
        assert cancel.returncode == 0 and job_id in cancel.stdout
        out, _ = sync.communicate(timeout=120)
    finally:
        if sync.poll() is None:
            sync.kill()
    report = json.loads(out)
    assert report["cancelled"] and 2 <= report["added"] < total
    listed = json.loads(run_main("docs", "jobs", "--json", tmp_path=tmp_path, config=config).stdout)["jobs"]
    assert [(j["job_id"], j["state"]) for j in listed] == [(job_id, "cancelled")]
    rest = json.loads(run_main("sync", "obsidian", "--json", tmp_path=tmp_path, config=config).stdout)
    assert (rest["added"], rest["unchanged"]) == (total - report["added"], report["added"])
