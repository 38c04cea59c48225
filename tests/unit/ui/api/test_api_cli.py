"""The `api` command's checks before serving: where it may listen, which token it uses, and that the token
is shown once, only to a terminal."""

from __future__ import annotations

import io
import stat
from pathlib import Path

import pytest

from core.errors import ConfigError
from ui.api import serve as api_cli
from ui.api.serve import TOKEN_ENV, api_token, check_api_bind

SECRET = "a-secret-chosen-by-the-user-42"


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost", "127.0.0.2"])
def test_loopback_binds_need_no_env_token(host: str) -> None:
    check_api_bind(host, None)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "my-laptop.lan"])
def test_other_binds_need_the_env_token(host: str) -> None:
    with pytest.raises(ConfigError, match=TOKEN_ENV):
        check_api_bind(host, None)
    check_api_bind(host, SECRET)


@pytest.mark.parametrize("token", ["short", "has a space in it, long enough"])
def test_a_weak_env_token_is_refused_without_repeating_it(token: str) -> None:
    with pytest.raises(ConfigError) as refused:
        check_api_bind("127.0.0.1", token)
    assert token not in str(refused.value)


def test_the_token_file_is_created_private_once(tmp_path: Path) -> None:
    first, created = api_token(None, tmp_path)
    assert created and len(first) >= 32
    assert stat.S_IMODE((tmp_path / "api_token").stat().st_mode) == 0o600
    again, created_again = api_token(None, tmp_path)
    assert (again, created_again) == (first, False)


def test_the_env_token_wins_and_no_file_is_made(tmp_path: Path) -> None:
    assert api_token(SECRET, tmp_path) == (SECRET, False)
    assert not (tmp_path / "api_token").exists()


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("stream", "shown"), [(Terminal(), True), (io.StringIO(), False)])
def test_a_new_token_is_shown_only_to_a_terminal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, stream: io.StringIO, shown: bool
) -> None:
    monkeypatch.setattr(api_cli.sys, "stderr", stream)
    path = tmp_path / "api_token"
    api_cli.announce_token(path, SECRET, None)
    assert str(path) in stream.getvalue()
    assert (SECRET in stream.getvalue()) is shown


def test_an_existing_token_is_never_shown(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    terminal = Terminal()
    monkeypatch.setattr(api_cli.sys, "stderr", terminal)
    api_cli.announce_token(tmp_path / "api_token", None, None)
    api_cli.announce_token(tmp_path / "api_token", None, SECRET)
    assert SECRET not in terminal.getvalue() and TOKEN_ENV in terminal.getvalue()
