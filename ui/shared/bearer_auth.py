"""Bearer tokens for the servers Daemon runs (`mcp --http`, `api`, the control routes): a random token in a
file of the data dir (0600, created on first use), and the ASGI middleware that answers 401 to any request
without it.

The token is never logged or printed; only the file's path is. Clients send `Authorization: Bearer <token>`.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

from core.errors import ConfigError

INVALID_REQUEST = -32600  # JSON-RPC's "invalid request"
UNAUTHORIZED = (
    "401 Unauthorized: send 'Authorization: Bearer <token>' (the mcp_token file of Daemon's data dir)"
)
_MIN_TOKEN_CHARS = 16


def read_or_create_token(path: Path, what: str = "MCP") -> str:
    """The token in `path`, written there first (mode 0600, never replacing an existing file) if absent.
    A file that others may read is made private; one too short to be a secret is refused. `what` names the
    server in error messages (the HTTP API keeps its own token file the same way)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read(path, what)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(secrets.token_urlsafe(32) + "\n")
    return _read(path, what)


def _read(path: Path, what: str) -> str:
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the {what} token file {path}: {exc}") from None
    if len(token) < _MIN_TOKEN_CHARS or any(ch.isspace() for ch in token):
        raise ConfigError(
            f"the {what} token in {path} must be one word of at least {_MIN_TOKEN_CHARS} characters; "
            "delete the file to get a new random one"
        )
    return token


class BearerAuth:
    """ASGI middleware: an HTTP request without `Authorization: Bearer <token>` gets 401, nothing more."""

    def __init__(self, app: Any, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            await self._reject(send)
            return
        await self._app(scope, receive, send)

    def _authorized(self, scope: Mapping[str, Any]) -> bool:
        given = [value for name, value in scope.get("headers", ()) if name.lower() == b"authorization"]
        # compare_digest: the time taken does not tell how much of a guess was right
        return len(given) == 1 and hmac.compare_digest(given[0], self._expected)

    async def _reject(self, send: Any) -> None:
        """The 401 answer; a subclass gives its own protocol's error body."""
        await _unauthorized(send)


async def _unauthorized(send: Any) -> None:
    # The body is a JSON-RPC error, so an MCP client shows its message rather than a bare status.
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": INVALID_REQUEST, "message": UNAUTHORIZED},
        }
    ).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", b'Bearer realm="daemon"'),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})
