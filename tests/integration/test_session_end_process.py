"""Session-end processing as a user runs it: `session end`, killed with -9 at every step, then finished.

The session is written straight into the journal (as if Daemon had crashed before indexing it), so the
start-up repair, the rule-fact repair step and every other step have real work to do. Each process runs
`python main.py session end` with one step wrapped to SIGKILL the process right after the step's work and
before its completion is recorded: the worst moment. The next process resumes. At the end every step is
done or skipped, the killed steps ran again, and nothing was written twice.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memory.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
STEPS = (
    "rule_facts",
    "llm_facts",
    "block_summaries",
    "behavioural_patterns",
    "procedural_skills",
    "proposals",
    "dedup_scan",
    "open_threads",
    "implementation_tracking",
    "synthesis_hook",
    "session_reflection",
)
MESSAGES = [
    "I live in Boston and I work at Acme Robotics.",
    "My sister Jo lives in Denver.",
    "How do I reset my router?\n1. Unplug it\n2. Wait thirty seconds\n3. Plug it back in",
    "It would be nice if you could remind me about birthdays.",
    "What was the name of the bakery I liked?",
    "I love hiking and jazz.",
    "Actually, I moved to Chicago.",
    "My dog's name is Rex.",
]
KILLER = """
import os, signal, sys
import memory.shutdown.session_end as session_end
target = sys.argv[1]
original = session_end.build_steps
def build_steps(*args, **kwargs):
    steps = original(*args, **kwargs)
    for step in steps:
        if step.name == target:
            run = step.run
            async def killing_run(ctx, run=run):
                try:
                    return await run(ctx)
                finally:  # after the work (or the skip), before the outcome is recorded
                    os.kill(os.getpid(), signal.SIGKILL)
            step.run = killing_run
    return steps
session_end.build_steps = build_steps
import main
sys.exit(main.main(["--config", sys.argv[2], "session", "end", "--json"]))
"""


def seed_session(data: Path) -> str:
    journal = Journal(data / "journal.sqlite3")
    session = journal.new_session()
    for text in MESSAGES:
        answer = "I don't know." if text.startswith("What was") else f"Noted: {text}"
        journal.complete_turn(journal.begin_turn(session, text), answer)
    journal.close()
    return session


def run(args: list[str], data: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DAEMON_DATA_DIR": str(data)}
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=180)


@pytest.mark.slow
def test_session_end_killed_at_every_step_finishes_exactly_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    config = tmp_path / "echo.yaml"
    config.write_text(ECHO_CONFIG)
    session = seed_session(data)
    for step in STEPS:  # each process resumes the work and dies in the next step
        result = run([sys.executable, "-c", KILLER, step, str(config)], data, ROOT)
        assert result.returncode == -9, (step, result.stderr[-2000:])
    final = run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config), "session", "end", "--json"],
        data,
        tmp_path,
    )
    assert final.returncode == 0, final.stderr
    report = json.loads(final.stdout)
    assert report["session_id"] == session and report["complete"]
    statuses = {s["name"]: s["status"] for s in report["steps"]}
    assert set(statuses) == set(STEPS) and set(statuses.values()) <= {"done", "skipped"}
    with sqlite3.connect(data / "session_jobs.sqlite3") as db:
        attempts = dict(db.execute("SELECT step, attempts FROM shutdown_jobs"))
    assert attempts == dict.fromkeys(STEPS, 2)  # the killed attempt and one re-run, never more
    again = run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config), "session", "end", "--json"],
        data,
        tmp_path,
    )
    assert all(not s["ran"] for s in json.loads(again.stdout)["steps"])  # ending it again does nothing
    _assert_nothing_twice(data, config, tmp_path)


def _assert_nothing_twice(data: Path, config: Path, cwd: Path) -> None:
    stats = run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config), "memory", "stats", "--json"],
        data,
        cwd,
    )
    counts = json.loads(stats.stdout)
    counts = counts.get("collections", counts)
    assert counts["summaries"] == 1 and counts["reflections"] == 1
    assert counts["procedural_skills"] == 1 and counts["proposals"] == 1 and counts["threads"] == 1
    assert counts["conversations"] == len(MESSAGES)  # the start-up repair indexed them once
    skills = run([sys.executable, str(ROOT / "main.py"), "skills", "list", "--json"], data, cwd)
    learned = json.loads(skills.stdout)["skills"]
    assert [s["origin"] for s in learned] == ["learned"]  # the how-to, as a skill folder the user can edit
    facts = run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config), "facts", "list", "--json"], data, cwd
    )
    listed = json.loads(facts.stdout)["facts"]
    triples = [(f["subject"], f["predicate"], f["object"]) for f in listed]
    assert len(triples) == len(set(triples)) and counts["facts"] == len(listed)
    user = [f for f in listed if f["subject"] == "user"]
    homes = {f["object"]: f["status"] for f in user if f["predicate"] == "lives_in"}
    assert homes == {"Boston": "superseded", "Chicago": "current"}


@pytest.mark.slow
def test_sigterm_ends_the_repl_and_its_session_end_steps_run_first(tmp_path: Path) -> None:
    import signal
    import time

    config = tmp_path / "echo.yaml"
    config.write_text(ECHO_CONFIG)
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config), "cli"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write("I live in Boston and I work at Acme Robotics.\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and "daemon> I live in Boston" not in proc.stdout.readline():
        pass
    proc.send_signal(signal.SIGTERM)  # the stdin pipe stays open: the REPL is waiting for input
    proc.wait(timeout=120)  # before communicate() closes stdin: an end of input would end the REPL normally
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, stderr[-2000:]
    assert "Saving what this session taught me" in stderr
    with sqlite3.connect(tmp_path / "data" / "session_jobs.sqlite3") as db:
        rows = list(db.execute("SELECT session_id, step, status FROM shutdown_jobs"))
    assert {step for _, step, _ in rows} == set(STEPS)
    assert {status for _, _, status in rows} <= {"done", "skipped"}
