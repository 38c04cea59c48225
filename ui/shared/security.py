"""Network exposure checks for the GUI: where it may listen and which Host names it answers.

Daemon listens on 127.0.0.1 by default. Any other address needs a password (DAEMON_GUI_AUTH), and a
loopback server only answers requests whose Host header is a loopback name, which defeats DNS rebinding
(a hostile page whose domain re-resolves to 127.0.0.1; Gradio's own localhost check keys on Host).
Repeated wrong passwords from one address lock that address out for a while (`LoginThrottle`).
"""

from __future__ import annotations

import ipaddress
import json
import math
import time
from collections import OrderedDict
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


class LoginThrottle:
    """ASGI middleware: after `allowed` failed logins in a row from one address, that address's logins are
    refused with 429 before any password is checked, for `first_lock_s`, doubled with each further failure
    up to `longest_s`. A successful login clears the address. Guessing a password is then a few tries an
    hour, and the rightful user, locked out by a typo at worst for `first_lock_s`, is told how long to wait.
    Behind a reverse proxy every client shares the proxy's address: the lock then covers all of them."""

    def __init__(
        self,
        app: Callable[[_Scope, _Receive, _Send], Awaitable[None]],
        *,
        allowed: int = 5,
        first_lock_s: float = 30.0,
        longest_s: float = 900.0,
        remembered: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.app = app
        self.allowed, self.first_lock_s, self.longest_s = allowed, first_lock_s, longest_s
        self._remembered, self._clock = remembered, clock
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()  # address → (failures, until)

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope["path"].rstrip("/") != "/login":
            await self.app(scope, receive, send)
            return
        address = str((scope.get("client") or ("unknown",))[0])
        wait = self._failures.get(address, (0, 0.0))[1] - self._clock()
        if wait > 0:
            await _refuse(send, math.ceil(wait))
            return
        status = 0

        async def noting_status(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        await self.app(scope, receive, noting_status)
        if 200 <= status < 300:
            self._failures.pop(address, None)
        elif status in (400, 401, 403):
            self._failed(address)

    def _failed(self, address: str) -> None:
        failures = self._failures.pop(address, (0, 0.0))[0] + 1
        over = failures - self.allowed
        lock_s = min(self.longest_s, self.first_lock_s * 2 ** min(over, 32)) if over >= 0 else 0.0
        self._failures[address] = (failures, self._clock() + lock_s)
        while len(self._failures) > self._remembered:  # a flood of addresses forgets the oldest, not memory
            self._failures.popitem(last=False)


async def _refuse(send: _Send, retry_after_s: int) -> None:
    body = json.dumps({"detail": f"Too many wrong passwords: try again in {retry_after_s} s."}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(retry_after_s).encode()),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})
