"""A full disk, for real: Daemon's data folder on a 64 MB tmpfs mounted in a user and mount namespace of its
own (`unshare`, no root needed), filled up to a few KB before a turn. Each turn either answers or fails with
one line that says the disk is full; once space is freed, nothing acknowledged is lost or doubled and the
indexes match their stores again."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memory.journal import Journal

HERE = Path(__file__).resolve().parent
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"

pytestmark = pytest.mark.slow


def test_a_full_disk_fails_a_turn_with_a_plain_message_and_loses_nothing(tmp_path: Path) -> None:
    unshare = shutil.which("unshare")
    assert unshare is not None, "util-linux's unshare makes the small disk"
    config, disk, out = tmp_path / "echo.yaml", tmp_path / "disk", tmp_path / "out"
    config.write_text(ECHO_CONFIG)
    disk.mkdir()
    out.mkdir()
    script = f'mount -t tmpfs -o size=64m tmpfs "$1" && exec "{sys.executable}" "$2" "$1" "$3" "$4"'
    done = subprocess.run(
        [unshare, "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh"]
        + [str(disk), str(HERE / "full_disk_driver.py"), str(config), str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    runs = json.loads((out / "runs.json").read_text(encoding="utf-8"))
    asks = [run for run in runs if run["args"][0] == "ask"]
    answered = []
    for run in asks:
        assert "Traceback" not in run["err"] and "unexpectedly" not in run["err"], run["err"]
        if run["rc"] == 0:
            answered.append(run["args"][1])
            assert json.loads(run["out"])["answer"] == run["args"][1]  # the echo model
        else:
            assert run["rc"] == 1 and run["out"] == ""
            said = run["err"].strip().splitlines()[-1]
            assert "is full (" in said and "free some space" in said, said
    assert asks[0]["rc"] == 0 and asks[-1]["rc"] == 0  # with room: before, and once space was freed
    assert any(run["rc"] != 0 for run in asks), "a disk with 8 KB left failed no turn: nothing was tested"

    journal = Journal(out / "data" / "journal.sqlite3")
    try:
        turns = list(journal.turns())
    finally:
        journal.close()
    for text in answered:
        assert [t.status for t in turns if t.user == text] == ["complete"]  # once, whole
    stats, facts = (json.loads(run["out"]) for run in runs[-2:])
    finished = [t for t in turns if t.status in ("complete", "cancelled")]
    assert stats["collections"]["conversations"] == len(finished)  # the index matches the journal again
    assert stats["collections"]["facts"] == len(facts["facts"])
    assert any(f["object"].lower() == "porto" for f in facts["facts"])
