"""A key is never written anywhere: `ask` on an OpenAI-compatible server that fails in every way a server
can (5xx until the retries are spent, a rate limit, a refused key echoed back in the error, a cut stream),
with DEBUG logging on, and then the bytes of stdout, stderr and every file of the data folder searched for
the key. The key reaches the server (the requests carry it), and nowhere else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.contract.fake_servers import FakeOpenAIServer, Step

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-canary-7f3a9c1e5b2d4f6a8c0e1g3i5k7m9o1q"

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def _ask(tmp_path: Path, server: FakeOpenAIServer, text: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "openai.yaml"
    config.write_text(
        "log_level: DEBUG\nretry:\n  max_attempts: 2\n  base_delay_s: 0.05\n  max_delay_s: 0.1\n"
        "models:\n  fallback_to_local: false\n"
    )
    env = {
        **os.environ,
        "DAEMON_DATA_DIR": str(tmp_path / "data"),
        "DAEMON_PROVIDER": "openai",
        "DAEMON_MODEL": "gpt-test",
        "OPENAI_API_KEY": KEY,
        "OPENAI_BASE_URL": server.base_url + "/v1",
    }
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config), "ask", text, "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )


FAILURES = [
    (Step(status=500, message="upstream exploded"), "server error"),
    (Step(status=429, message="slow down", headers=(("retry-after", "0"),)), "rate"),
    (
        Step(status=401, message=f"Incorrect API key provided: {KEY}"),
        "rejected the api key",
    ),  # servers echo keys
    (Step(text="an answer cut off half way through", truncate="drop"), ""),
]


def test_a_key_is_sent_to_its_server_and_written_nowhere_whatever_the_server_answers(tmp_path: Path) -> None:
    server = FakeOpenAIServer().start()
    outputs = []
    try:
        for step, said in FAILURES:
            server.steps.clear()
            server.script(*[step] * 60)  # every call of the turn (side calls, retries) meets the same fault
            run = _ask(tmp_path, server, f"question after {step.status or 'a cut stream'}")
            assert run.returncode != 0 and said in run.stdout.lower(), (run.stdout, run.stderr[-500:])
            outputs.append(run)
    finally:
        server.stop()
    assert all(KEY in str(r.headers) for r in server.requests)  # it did go where it belongs
    for run in outputs:
        assert "Traceback" not in run.stderr
        assert KEY not in run.stdout and KEY not in run.stderr
    holding = [
        str(path.relative_to(tmp_path))
        for path in (tmp_path / "data").rglob("*")
        if path.is_file() and KEY.encode() in path.read_bytes()
    ]
    assert holding == []
    assert (tmp_path / "data" / "daemon.log").exists()  # the log was written, and holds no key
