"""Saved API keys: a 0600 file without a keyring, the OS keyring when one works, never shown in full."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from core.data_dir import write_private
from core.secrets import (
    INDEX_FILE,
    SECRETS_FILE,
    SecretStore,
    mask,
    under_environment,
    usable_keyring,
)

KEY = "sk-test-0123456789abcdefSECRETVALUE"


class MemoryKeyring(KeyringBackend):
    """A keyring that keeps passwords in a dict (what a desktop's SecretService would hold)."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.saved: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.saved.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.saved[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        del self.saved[(service, username)]


@pytest.fixture
def memory_keyring() -> Any:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def test_without_a_keyring_keys_go_to_a_file_only_the_user_can_read(tmp_path: Path) -> None:
    store = SecretStore(tmp_path, keyring=lambda: None)
    old_umask = os.umask(0o022)  # a permissive umask must not widen the file
    try:
        store.set("OPENAI_API_KEY", KEY)
    finally:
        os.umask(old_umask)

    path = tmp_path / SECRETS_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert SecretStore(tmp_path, keyring=lambda: None).get("OPENAI_API_KEY") == KEY
    assert store.as_env() == {"OPENAI_API_KEY": KEY}
    assert [p.name for p in tmp_path.iterdir()] == [SECRETS_FILE]  # no temporary file left behind


def test_the_failing_headless_keyring_counts_as_no_keyring() -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        assert usable_keyring() is None
    finally:
        keyring.set_keyring(previous)


def test_with_a_keyring_the_value_lives_there_and_the_data_dir_keeps_only_names(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    store = SecretStore(tmp_path)
    store.set("TAVILY_API_KEY", KEY)

    assert memory_keyring.saved == {(store.service, "TAVILY_API_KEY"): KEY}
    assert KEY not in (tmp_path / INDEX_FILE).read_text()
    assert not (tmp_path / SECRETS_FILE).exists()
    assert SecretStore(tmp_path).as_env() == {"TAVILY_API_KEY": KEY}

    store.delete("TAVILY_API_KEY")
    assert memory_keyring.saved == {} and store.names() == []


def test_two_data_dirs_do_not_share_keyring_entries(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    SecretStore(tmp_path / "a").set("E2B_API_KEY", KEY)

    assert SecretStore(tmp_path / "b").get("E2B_API_KEY") is None


def test_an_empty_value_deletes_and_a_bad_name_is_refused(tmp_path: Path) -> None:
    store = SecretStore(tmp_path, keyring=lambda: None)
    store.set("WOLFRAM_APP_ID", "ABC123-XYZ")
    store.set("WOLFRAM_APP_ID", "  ")

    assert store.names() == [] and not (tmp_path / SECRETS_FILE).exists()
    with pytest.raises(ValueError, match="not an environment variable name"):
        store.set("../etc/passwd", KEY)


def test_a_key_never_appears_in_logs_output_or_reprs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    store = SecretStore(tmp_path, keyring=lambda: None)
    store.set("OPENAI_API_KEY", KEY)
    print(store, repr(store), store.where(), mask(store.get("OPENAI_API_KEY")))
    logging.getLogger("daemon").info("saved %s", store)

    captured = capsys.readouterr()
    shown = captured.out + captured.err + caplog.text
    assert "OPENAI_API_KEY" in shown  # the name is fine to show
    assert KEY not in shown and KEY[:-4] not in shown
    assert mask(KEY) == "••••ALUE" and mask("short") == "••••" and mask(None) == "(not set)"


def test_an_atomic_write_replaces_and_keeps_0600(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text("old")
    os.chmod(path, 0o644)

    write_private(path, "new")

    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_set_environment_variable_wins_over_a_saved_key_but_an_empty_one_does_not() -> None:
    saved = {"OPENAI_API_KEY": "saved", "TAVILY_API_KEY": "saved-tavily", "E2B_API_KEY": "saved-e2b"}
    env = {"OPENAI_API_KEY": "from-env", "TAVILY_API_KEY": "", "PATH": "/bin"}

    merged = under_environment(saved, env)

    assert merged == {
        "OPENAI_API_KEY": "from-env",
        "TAVILY_API_KEY": "saved-tavily",
        "E2B_API_KEY": "saved-e2b",
        "PATH": "/bin",
    }


def test_keys_saved_at_once_from_several_threads_are_all_kept(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    store = SecretStore(tmp_path, keyring=lambda: None)
    names = [f"KEY_{i}" for i in range(16)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda name: store.set(name, f"value-of-{name}"), names))

    assert store.as_env() == {name: f"value-of-{name}" for name in names}
    assert [p.name for p in tmp_path.iterdir()] == [SECRETS_FILE]
