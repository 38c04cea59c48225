"""The wizard's saved keys and settings reach a real `python main.py` process; doctor finds local servers.

Each test runs main.py as a subprocess on a fresh data dir that holds what the wizard writes
(settings.yaml, secrets.json) and checks what the process saw: the key counted as set (never printed),
the saved provider chosen, and a fake Ollama listed by doctor.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.config_user import save_settings
from core.secrets import SecretStore
from tests.fakes.model_listing_servers import OllamaListing, port_of

pytestmark = pytest.mark.slow  # doctor starts Chroma and looks at the models (~5 s)
ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-saved-by-the-wizard-0123456789abcdef"


def _doctor(data: Path, **extra_env: str) -> tuple[dict[str, str], str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(extra_env)
    result = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--data-dir", str(data), "doctor", "--json"],
        capture_output=True,
        env=env,
        cwd=data,
        timeout=120,
    )
    out = result.stdout.decode() + result.stderr.decode()
    report = json.loads(result.stdout)
    return {c["name"]: c["detail"] for c in report["checks"]}, out


def test_a_saved_key_and_a_found_local_server_show_in_doctor_without_the_value(tmp_path: Path) -> None:
    data = tmp_path / "data"
    SecretStore(data, keyring=lambda: None).set("OPENAI_API_KEY", KEY)
    ollama = OllamaListing(("qwen2.5:7b", "llama3.2:3b")).start()
    try:
        checks, out = _doctor(data, DAEMON_DISCOVERY__OLLAMA=str(port_of(ollama)))
    finally:
        ollama.stop()

    assert "openai: key set" in checks["providers"]
    assert "main: openai" in checks["providers"]  # `auto` picks the provider whose key was saved
    assert "OPENAI_API_KEY" in checks["saved keys"]
    assert "qwen2.5:7b, llama3.2:3b" in checks["local servers"]
    assert KEY not in out and KEY[:-4] not in out


def test_saved_settings_choose_the_provider_of_a_real_process(tmp_path: Path) -> None:
    data = tmp_path / "data"
    SecretStore(data, keyring=lambda: None).set("ANTHROPIC_API_KEY", KEY)
    entry = {
        "kind": "openai",
        "model": "qwen2.5:7b",
        "base_url": "http://127.0.0.1:9/v1",
        "dialect": "ollama",
    }
    save_settings(data, {"providers": {"ollama": entry}, "models": {"main": "ollama"}})

    checks, out = _doctor(data, ANTHROPIC_API_KEY="", DAEMON_DISCOVERY__OLLAMA="9")

    assert "main: ollama (qwen2.5:7b)" in checks["providers"]
    assert "anthropic: key set" in checks["providers"]  # an empty variable does not hide the saved key
    assert checks["local servers"].startswith("none found")  # port 9: nothing listens
    assert KEY not in out
