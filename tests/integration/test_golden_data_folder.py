"""A data folder written by an earlier Daemon (tests/data/golden: its commit and Chroma version are in
manifest.json; make_golden.py says when to write a new one) opens with this one and reads back the same:
every turn, every collection's count, every fact, the top search hit. A folder migrated by a newer Daemon
is refused with a message, never half-read or rewritten."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "data" / "golden"
ECHO = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"

pytestmark = pytest.mark.slow


def unpacked(tmp_path: Path) -> Path:
    with tarfile.open(GOLDEN / "data_folder.tar.gz") as archive:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4+: refuse links and paths out of the folder
            archive.extractall(tmp_path, filter="data")
        else:  # our own archive, from the repository
            archive.extractall(tmp_path)  # noqa: S202
    (tmp_path / "echo.yaml").write_text(ECHO)
    return tmp_path / "data"


def daemon(tmp_path: Path, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(tmp_path / "echo.yaml"), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "DAEMON_DATA_DIR": str(data)},
        cwd=tmp_path,
        timeout=300,
    )


def read(tmp_path: Path, data: Path, *args: str) -> Any:
    done = daemon(tmp_path, data, *args, "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_a_folder_an_earlier_daemon_wrote_reads_back_the_same(tmp_path: Path) -> None:
    manifest = json.loads((GOLDEN / "manifest.json").read_text(encoding="utf-8"))
    data = unpacked(tmp_path)
    turns = read(tmp_path, data, "history", "--limit", "100")["turns"]
    assert [turn["user"] for turn in turns] == manifest["turns"]
    assert read(tmp_path, data, "memory", "stats")["collections"] == manifest["collections"]
    facts = read(tmp_path, data, "facts", "list")["facts"]
    rows = sorted([f["subject"], f["predicate"], f["object"], f["status"]] for f in facts)
    assert rows == manifest["facts"]
    hits = read(tmp_path, data, "memory", "search", manifest["query"])["results"]
    assert manifest["top_hit"] in [hit["id"] for hit in hits[:3]]
    assert not list(data.rglob("*.corrupt-*"))  # nothing was taken for damaged


def test_a_folder_migrated_by_a_newer_daemon_is_refused_untouched(tmp_path: Path) -> None:
    data = unpacked(tmp_path)
    schema = data / "chroma_schema.json"
    state = json.loads(schema.read_text(encoding="utf-8"))
    state["applied"].append({"name": "999_from_the_future", "applied_at": 0.0})
    state["version"] = len(state["applied"])
    schema.write_text(json.dumps(state), encoding="utf-8")
    before = schema.read_bytes()
    done = daemon(tmp_path, data, "memory", "stats", "--json")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "migrated by a newer Daemon" in done.stderr and "upgrade Daemon" in done.stderr
    assert schema.read_bytes() == before
