"""`doctor` reports real facts about this installation and never leaks secrets."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core.config import load_config
from installer.doctor import check_data_dir, check_providers, print_report, run_checks


def test_every_check_passes_on_the_test_installation(tmp_path: Path) -> None:
    config = load_config(overrides={"data_dir": str(tmp_path / "data")})
    checks = {c.name: c for c in run_checks(config, {})}
    failed = {name: c.detail for name, c in checks.items() if not c.ok}
    assert not failed
    assert {
        "python",
        "packages",
        "embedding model",
        "spaCy model",
        "multilingual model",
        "local LLM",
        "data dir",
        "providers",
        "chroma",
    } <= set(checks)
    assert "main: local" in checks["providers"].detail


def test_unwritable_data_dir_is_reported(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    check = check_data_dir(blocker / "data")  # a path below a regular file cannot be created
    assert not check.ok and "not writable" in check.detail


def test_provider_check_never_prints_the_key() -> None:
    config = load_config()
    env = {"OPENAI_API_KEY": "sk-very-secret-value"}
    check = check_providers(config, env)
    assert "openai: key set" in check.detail and "main: openai" in check.detail
    assert "sk-very-secret-value" not in check.detail


def test_json_report_and_exit_code(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = load_config(overrides={"data_dir": str(tmp_path)})
    checks = run_checks(config, {})
    assert print_report(checks, as_json=True) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["ok"] is True and len(payload["checks"]) == len(checks)


def test_a_chosen_provider_without_its_key_fails_the_providers_line() -> None:
    env = {"DAEMON_PROVIDER": "openai"}
    check = check_providers(load_config(env=env), env)
    assert not check.ok and check.required and "OPENAI_API_KEY is not set" in check.detail


def test_data_other_users_can_read_is_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "journal.sqlite3").write_bytes(b"")
    os.chmod(data / "journal.sqlite3", 0o644)
    checks = run_checks(load_config(overrides={"data_dir": str(data)}), {})
    privacy = next(c for c in checks if c.name == "data privacy")
    assert not privacy.ok and not privacy.required and "journal.sqlite3" in privacy.detail
    assert print_report(checks, as_json=False) == 0  # a warning, not a failure
    assert "warn  data privacy" in capsys.readouterr().out
