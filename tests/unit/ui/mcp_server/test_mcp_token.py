"""The bearer token of `mcp --http`: created once, private, never replaced; and the middleware that turns
away every HTTP request without it (lifespan events pass)."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from core.errors import ConfigError
from ui.shared.bearer_auth import BearerAuth, read_or_create_token


def test_the_token_is_created_private_and_then_kept(tmp_path: Path) -> None:
    path = tmp_path / "mcp_token"
    token = read_or_create_token(path)
    assert len(token) >= 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_or_create_token(path) == token
    assert read_or_create_token(tmp_path / "other") != token


def test_a_readable_token_file_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "mcp_token"
    path.write_text("a-token-the-user-chose-1234\n")
    path.chmod(0o644)
    assert read_or_create_token(path) == "a-token-the-user-chose-1234"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("content", ["", "short", "two words of a token"])
def test_a_token_that_is_no_secret_is_refused(tmp_path: Path, content: str) -> None:
    path = tmp_path / "mcp_token"
    path.write_text(content)
    with pytest.raises(ConfigError, match="delete the file"):
        read_or_create_token(path)


class Recorder:
    """An ASGI app and `send` channel that record what happened."""

    def __init__(self) -> None:
        self.reached: list[str] = []
        self.sent: list[dict[str, Any]] = []

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.reached.append(scope["type"])

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


async def _request(headers: list[tuple[bytes, bytes]], kind: str = "http") -> Recorder:
    recorder = Recorder()
    middleware = BearerAuth(recorder.app, "s3cret-token-0123456789")
    await middleware({"type": kind, "headers": headers}, None, recorder.send)
    return recorder


async def test_only_the_right_bearer_token_reaches_the_app() -> None:
    allowed = await _request([(b"authorization", b"Bearer s3cret-token-0123456789")])
    assert allowed.reached == ["http"] and allowed.sent == []
    for headers in (
        [],
        [(b"authorization", b"Bearer s3cret-token-012345678")],
        [(b"authorization", b"s3cret-token-0123456789")],
        [(b"authorization", b"Bearer s3cret-token-0123456789"), (b"authorization", b"Bearer other")],
    ):
        refused = await _request(headers)
        assert refused.reached == []
        start, body = refused.sent
        assert start["status"] == 401 and (b"www-authenticate", b'Bearer realm="daemon"') in start["headers"]
        assert "401 Unauthorized" in json.loads(body["body"])["error"]["message"]


async def test_lifespan_events_pass_without_a_token() -> None:
    assert (await _request([], kind="lifespan")).reached == ["lifespan"]
