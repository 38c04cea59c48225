"""`ingest` and `docs` as a user runs them: real processes, real Chroma, the real MiniLM tokenizer/model."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.unit.knowledge.documents_samples import MARKDOWN, pdf_bytes, write_docx, zip_bytes

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration


def run_main(*args: str, tmp_path: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=tmp_path,
    )


def one_json(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout


@pytest.mark.slow
def test_ingest_list_reingest_and_remove_keep_the_json_contract(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "boat.md").write_text(MARKDOWN)
    (folder / "ferry.pdf").write_bytes(pdf_bytes([["The ferry leaves at 07:40."], ["From pier 3."]]))
    write_docx(folder / "plan.docx", "Trip plan", [("Gear", ["Bring the red kayak."])])
    (folder / "ignored.bin").write_bytes(b"\x00\x01")
    result = run_main("ingest", str(folder), "--json", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    summary = one_json(result)
    assert summary["state"] == "done" and summary["counts"] == {"ingested": 3}
    assert summary["passed_over"] == 1 and summary["items"] == {"done": 3, "total": 3, "failed": 0}
    assert {d["file_type"] for d in summary["documents"]} == {"md", "pdf", "docx"}
    for key in ("job_id", "bytes", "elapsed_s", "eta_s", "resumed"):
        assert key in summary

    again = one_json(run_main("ingest", str(folder / "boat.md"), "--json", tmp_path=tmp_path))
    assert again["counts"] == {"unchanged": 1}

    listed = one_json(run_main("docs", "list", "--json", tmp_path=tmp_path))
    assert listed["total"] == 3
    boat = next(d for d in listed["documents"] if d["title"] == "Boathouse")
    (folder / "boat.md").write_text(MARKDOWN.replace("7319", "8420"))
    updated = one_json(run_main("docs", "reingest", boat["document_id"], "--json", tmp_path=tmp_path))
    assert updated["status"] == "updated" and updated["removed"] == boat["chunks"]

    removed = one_json(run_main("docs", "remove", boat["document_id"], "--json", tmp_path=tmp_path))
    assert removed["removed"] > 0
    assert one_json(run_main("docs", "list", "--json", tmp_path=tmp_path))["total"] == 2
    jobs = one_json(run_main("docs", "jobs", "--json", tmp_path=tmp_path))["jobs"]
    assert [j["state"] for j in jobs] == ["done", "done"]


@pytest.mark.slow
def test_bad_files_are_one_error_line_and_exit_2_and_change_nothing(tmp_path: Path) -> None:
    good = tmp_path / "good.md"
    good.write_text(MARKDOWN)
    assert run_main("ingest", str(good), tmp_path=tmp_path).returncode == 0
    before = one_json(run_main("docs", "list", "--json", tmp_path=tmp_path))
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.truncate(200 * 1024 * 1024)
    (tmp_path / "archive.pdf").write_bytes(zip_bytes())
    (tmp_path / "broken.pdf").write_bytes(pdf_bytes([["x"]])[:100] + b"\x00junk" * 30)
    (tmp_path / "latin.txt").write_bytes("Grüße aus Köln".encode("cp1252"))
    cases = {
        "huge.txt": "over the limit of 50 MB",
        "archive.pdf": "ZIP archive renamed to .pdf",
        "broken.pdf": "damaged",
        "nothing.md": "no such file",
    }
    for name, message in cases.items():
        result = run_main("ingest", str(tmp_path / name), tmp_path=tmp_path)
        assert result.returncode == 2, (name, result.stderr)
        assert message in result.stdout + result.stderr, name
        assert result.stderr.strip().splitlines()[-1].startswith("error:")
        no_traceback(result)
    as_json = run_main(
        "ingest", str(tmp_path / "archive.pdf"), str(tmp_path / "latin.txt"), "--json", tmp_path=tmp_path
    )
    assert as_json.returncode == 2
    summary = one_json(as_json)
    assert summary["counts"] == {"failed": 1, "ingested": 1}
    latin = next(d for d in summary["documents"] if d["status"] == "ingested")
    assert latin["notes"] == ["not UTF-8: read as Windows-1252"]
    after = one_json(run_main("docs", "list", "--json", tmp_path=tmp_path))
    assert [d for d in after["documents"] if d["title"] != "latin"] == before["documents"]
    assert run_main("ingest", tmp_path=tmp_path).returncode == 2  # no path, no --resume


@pytest.mark.slow
def test_a_fact_only_in_a_document_is_found_by_search_the_prompt_and_get_full_document(
    tmp_path: Path,
) -> None:
    doc = tmp_path / "boathouse-manual.md"
    doc.write_text(MARKDOWN)
    assert run_main("ingest", str(doc), tmp_path=tmp_path).returncode == 0
    search = run_main(
        "memory",
        "search",
        "What is the access code for the boathouse door?",
        "--intent",
        "factual_recall",
        "--json",
        tmp_path=tmp_path,
    )
    assert search.returncode == 0, search.stderr
    results = one_json(search)["results"]
    assert results and results[0]["collection"] == "reference_docs" and "7319" in results[0]["text"]
    prompt = run_main(
        "prompt", "What is the access code for the boathouse door?", "--json", tmp_path=tmp_path
    )
    assert prompt.returncode == 0, prompt.stderr
    sections = {s["key"]: s for s in one_json(prompt)["sections"]}
    assert "documentation" in sections  # the model is shown the passage (a factual_recall question)
    preview = run_main(
        "prompt", "What is the access code for the boathouse door?", "--json", "--explain", tmp_path=tmp_path
    )
    items = {s["key"]: s["items"] for s in one_json(preview)["sections"]}
    assert any("7319" in item["text"] for item in items["documentation"])
    tool = run_main(
        "tool",
        "run",
        "get_full_document",
        "--args",
        '{"title": "boathouse manual"}',
        "--json",
        tmp_path=tmp_path,
    )
    assert tool.returncode == 0, tool.stderr
    output = one_json(tool)["output"]
    assert "part 1 of 1" in output and MARKDOWN in output


def ledger_rows(data: Path) -> list[tuple[str, str, float | None]]:
    path = data / "jobs.sqlite3"
    if not path.exists():
        return []
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            return db.execute("SELECT key, state, done_at FROM job_items ORDER BY position").fetchall()
    except sqlite3.OperationalError:  # the writer is creating it
        return []


@pytest.mark.slow
def test_kill_9_mid_job_then_resume_does_every_file_once(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(30):
        (folder / f"note{i:02d}.md").write_text(f"# Note {i}\n\n" + f"Paragraph {i} about topic {i}. " * 300)
    env = {**os.environ, "DAEMON_DATA_DIR": str(tmp_path / "data")}
    job = subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), "ingest", str(folder), "--json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and job.poll() is None:
            if sum(state == "done" for _, state, _ in ledger_rows(tmp_path / "data")) >= 3:
                break
            time.sleep(0.05)
        assert job.poll() is None, "the job ended before it could be killed"
        os.kill(job.pid, signal.SIGKILL)
        job.wait(30)
    finally:
        if job.poll() is None:
            job.kill()
    done_before = {key: at for key, state, at in ledger_rows(tmp_path / "data") if state == "done"}
    assert 3 <= len(done_before) < 30

    result = run_main("ingest", "--resume", "--json", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    (summary,) = one_json(result)["jobs"]
    assert summary["resumed"] == len(done_before) and summary["items"]["done"] == 30
    ran = {d["path"] for d in summary["documents"] if d["this_run"]}
    assert not ran & set(done_before) and ran | set(done_before) == {str(p) for p in folder.iterdir()}
    assert set(summary["counts"]) <= {"ingested", "unchanged"}  # the file cut off mid-write: unchanged
    after = {key: at for key, state, at in ledger_rows(tmp_path / "data")}
    assert all(after[key] == at for key, at in done_before.items())
    listed = one_json(run_main("docs", "list", "--json", tmp_path=tmp_path))
    assert listed["total"] == 30
    assert one_json(run_main("ingest", "--resume", "--json", tmp_path=tmp_path)) == {"jobs": []}


@pytest.mark.slow
def test_background_ingest_returns_at_once_and_docs_jobs_follows_it(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(4):
        (folder / f"n{i}.md").write_text(f"# Note {i}\n\nThe tide table for pier {i} is on the wall.\n")
    started = run_main("ingest", str(folder), "--background", "--json", tmp_path=tmp_path)
    assert started.returncode == 0, started.stderr
    job = one_json(started)
    assert job["state"] == "started" and job["items"] == 4 and job["pid"] > 0
    deadline = time.monotonic() + 240
    state = ""
    while time.monotonic() < deadline:
        jobs = one_json(run_main("docs", "jobs", "--json", tmp_path=tmp_path))["jobs"]
        state = next(j["state"] for j in jobs if j["job_id"] == job["job_id"])
        if state != "running":
            break
        time.sleep(1)
    assert state == "done"
    assert one_json(run_main("docs", "list", "--json", tmp_path=tmp_path))["total"] == 4
    cancel = run_main("docs", "cancel", job["job_id"], tmp_path=tmp_path)
    assert cancel.returncode == 2 and "no running job" in cancel.stderr  # it has finished
