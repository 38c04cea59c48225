"""`bench api` as a user runs it: twenty OpenAI-style clients at once on the API over real HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_twenty_clients_at_once_get_their_own_answers_and_sessions(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "bench", "api", "--sessions", "20", "--turns", "3", "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["failures"] == [] and result["journal_problems"] == []  # nothing failed, nothing crossed
    assert result["isolated"] is True
    assert result["requests"] == 3 + 20 * 3
    assert 0 < result["alone_ms"]["p50"] <= result["alone_ms"]["p95"]
    assert 0 < result["concurrent_ms"]["p50"] <= result["concurrent_ms"]["p95"]
