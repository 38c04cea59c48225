"""`bench startup` as a user runs it, small: fresh processes start on a data dir and report ready time and
the idle RSS beside its goal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_bench_startup_reports_ready_time_and_idle_rss_beside_the_goal(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "bench", "startup"]
        + ["--memories", "60", "--runs", "1", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(tmp_path)},  # its cached data dir goes with the test
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["memories"] == 60 and result["runs"] == 1 and result["ready_s"] > 0
    assert result["idle_rss_goal_mb"] == 600
    assert 50 < result["idle_rss_mb"] < 4000  # a real process's resident memory, in MB
