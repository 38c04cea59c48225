"""Loaded at start-up by every Python process whose PYTHONPATH holds this folder (the offline test's): each
attempt to reach beyond this machine (a name lookup or a connection to an address that is not loopback) is
appended to the file named by DAEMON_TEST_CONNECTIONS and refused, as on a machine with no network."""

from __future__ import annotations

import ipaddress
import os
import socket
import traceback

_LOG = os.environ.get("DAEMON_TEST_CONNECTIONS", "")
_LOCAL_NAMES = {"localhost", "", "0.0.0.0", "::"}


def _local(host: object) -> bool:
    if not isinstance(host, str):
        return True  # a Unix socket's path or an abstract address
    name = host.strip("[]").lower()
    if name in _LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name.split("%")[0]).is_loopback
    except ValueError:
        return False  # a host name: resolving it is already a query to the network


def _record(what: str, target: object) -> None:
    where = "".join(traceback.format_stack(limit=8)[:-2])
    with open(_LOG, "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()} {what} {target!r}\n{where}\n")
    raise OSError(f"no network here: {what} {target!r}")


def _install() -> None:
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: object) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(address[0]):  # type: ignore[index]
            _record("connect", address)
        return real_connect(self, address)  # type: ignore[arg-type]

    def connect_ex(self: socket.socket, address: object) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(address[0]):  # type: ignore[index]
            _record("connect", address)
        return real_connect_ex(self, address)  # type: ignore[arg-type]

    def getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
        if host is not None and not _local(host.decode() if isinstance(host, bytes) else host):
            _record("lookup", host)
        return real_getaddrinfo(host, *args, **kwargs)  # type: ignore[arg-type]

    socket.socket.connect = connect  # type: ignore[method-assign,assignment]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign,assignment]
    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]


if _LOG:
    _install()
