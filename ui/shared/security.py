"""Network exposure checks for the GUI: where it may listen and which Host names it answers.

Daemon listens on 127.0.0.1 by default. Any other address needs a password (DAEMON_GUI_AUTH), and a
loopback server only answers requests whose Host header is a loopback name, which defeats DNS rebinding
(a hostile page whose domain re-resolves to 127.0.0.1; Gradio's own localhost check keys on Host).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from core.errors import ConfigError

AUTH_ENV = "DAEMON_GUI_AUTH"
LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})

_Scope = MutableMapping[str, Any]
_Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
_Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """True if `host` (an IP address, `[::1]` or a name like `localhost`) only reaches this machine."""
    name = host.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, auth: tuple[str, str] | None) -> None:
    """Refuse to expose the GUI beyond this machine without a password.

    Raises `ConfigError` for a non-loopback `host` (including 0.0.0.0) without `auth`, and for an `auth`
    pair with an empty user name or password.
    """
    if auth is not None and (not auth[0] or not auth[1]):
        raise ConfigError(f"{AUTH_ENV} needs both a user name and a password, as user:password")
    if auth is None and not is_loopback(host):
        raise ConfigError(
            f"refusing to serve the GUI on {host!r} without a password: anyone who can reach that address "
            f"could read your memory. Set {AUTH_ENV}=user:password, or bind 127.0.0.1 (the default)."
        )


def parse_auth(value: str | None) -> tuple[str, str] | None:
    """Parse `user:password` (the value of DAEMON_GUI_AUTH); None or "" means no login.

    The error message never repeats the value, so a password cannot leak into logs.
    """
    if not value:
        return None
    user, sep, password = value.partition(":")
    if not sep or not user or not password:
        raise ConfigError(f"{AUTH_ENV} must look like user:password (both parts non-empty)")
    return user, password


def host_name(header: str) -> str:
    """The host part of a Host header: `127.0.0.1:7860` → `127.0.0.1`, `[::1]:7860` → `::1`."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def allowed_hosts_for(bind_host: str) -> frozenset[str] | None:
    """Host names a server bound to `bind_host` should answer; None means do not restrict (a LAN bind)."""
    if not is_loopback(bind_host):
        return None
    return frozenset({"127.0.0.1", "::1", *LOOPBACK_NAMES, host_name(bind_host)})


class HostAllowlist:
    """ASGI middleware: answer 400 (HTTP) or close (WebSocket) when the Host header is not allowed."""

    def __init__(self, app: Callable[[_Scope, _Receive, _Send], Awaitable[None]], allowed: Iterable[str]):
        self.app = app
        self.allowed = frozenset(name.lower() for name in allowed)

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] in ("http", "websocket") and not self._ok(scope):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            body = b"Invalid host header"
            headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 400, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _ok(self, scope: _Scope) -> bool:
        for key, value in scope.get("headers", ()):
            if key == b"host":
                return host_name(value.decode("latin-1")) in self.allowed
        return False
