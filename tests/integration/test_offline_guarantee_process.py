"""The offline guarantee, proven: with no provider or web tool configured, a whole session (start, turns,
a document ingested, the session's end, the GUI loaded, an export) makes no attempt to reach beyond this
machine. Every process runs with a recorder (connection_recorder/sitecustomize.py) that logs and refuses
each name lookup or connection that is not loopback; the environment is a user's, without the switches
the other tests set (HF_HUB_OFFLINE, GRADIO_ANALYTICS_ENABLED), so what keeps Daemon offline is its own
code. A control run shows the recorder does catch an attempt."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.browser.gui_page import served_gui
from tests.integration.offline_cli import NEEDS_EMBEDDED_MODEL

pytestmark = [pytest.mark.slow, pytest.mark.integration, NEEDS_EMBEDDED_MODEL]

ROOT = Path(__file__).resolve().parents[2]
RECORDER = Path(__file__).resolve().parent / "connection_recorder"
# what the test harness sets to keep other tests offline; a user's environment has none of it
HARNESS_SWITCHES = (
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
    "GRADIO_ANALYTICS_ENABLED",
    "HF_DATASETS_OFFLINE",
)
KEYS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENAI_BASE_URL",
    "TAVILY_API_KEY",
)
SAID = "My name is Ines and I live in Porto.\nWhat's in my packing list?\nWhat time is it?\nThanks!\n/quit\n"


def users_env(tmp_path: Path, log: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in HARNESS_SWITCHES + KEYS and not k.startswith("DAEMON_")
    }
    env.update(
        {
            "DAEMON_DATA_DIR": str(tmp_path / "data"),
            "DAEMON_TEST_CONNECTIONS": str(log),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(RECORDER), env.get("PYTHONPATH")])),
        }
    )
    return env


def run(
    env: dict[str, str], cwd: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        input=stdin,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_a_whole_session_with_the_defaults_makes_no_connection_beyond_this_machine(tmp_path: Path) -> None:
    log = tmp_path / "connections.log"
    env = users_env(tmp_path, log)
    notes = tmp_path / "packing-list.md"
    notes.write_text("# Packing list\n\n- passport\n- walking boots\n- rain jacket\n")

    assert "nothing leaves this machine" in run(env, tmp_path, "doctor").stdout
    run(env, tmp_path, "ingest", str(notes))
    session = run(env, tmp_path, "cli", stdin=SAID)
    assert "Porto" in session.stdout or "Ines" in session.stdout
    run(env, tmp_path, "session", "end")
    with served_gui([], env, tmp_path) as url:
        page = httpx.get(url + "/", timeout=30)
        assert page.status_code == 200 and "Daemon" in page.text
        assert httpx.get(url + "/config", timeout=30).status_code == 200  # what the page loads next
    run(env, tmp_path, "export", str(tmp_path / "everything.zip"))
    attempts = log.read_text() if log.exists() else ""
    assert attempts == "", attempts[:4000]

    control = subprocess.run(
        [sys.executable, "-c", "import socket; socket.create_connection(('192.0.2.1', 443), timeout=1)"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert control.returncode != 0 and "192.0.2.1" in log.read_text()  # the recorder does catch one


def test_with_a_provider_configured_only_its_host_is_contacted(tmp_path: Path) -> None:
    log = tmp_path / "connections.log"
    # one attempt, no retries: what is tried matters here, not how often
    env = {
        **users_env(tmp_path, log),
        "OPENAI_API_KEY": "sk-test-not-a-real-key",
        "DAEMON_RETRY__MAX_ATTEMPTS": "1",
    }
    listed = run(env, tmp_path, "doctor").stdout
    assert "api.openai.com (the openai provider" in listed and "nothing leaves" not in listed
    subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "ask", "Hello there"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=900,
    )  # refused by the recorder, so it fails: what matters is what it tried
    tried = {
        line.split(" ", 2)[2].split("'")[1] for line in log.read_text().splitlines() if line[:1].isdigit()
    }
    assert tried == {"api.openai.com"}
