"""Where a running Daemon can be reached: the endpoint and token files it keeps in its data dir.

The process that owns the data dir (the GUI or `api`) serves the control routes on 127.0.0.1 and writes
`daemon_endpoint.json` (port, pid, when it started, what it is) and `daemon_token` (a fresh random token,
created 0600 in one step: never readable by anyone else, not even for an instant). Both are removed when it
exits cleanly. A file a crashed process left behind is recognised as stale by the reader (its pid is gone,
or the port does not answer `/health` with the token: ui/attach/client.py) and ignored.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from core.data_dir import write_private

ENDPOINT_FILE = "daemon_endpoint.json"
TOKEN_FILE = "daemon_token"
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class Endpoint:
    """What the endpoint file says: where the control routes answer and which process serves them."""

    port: int
    pid: int
    started: float
    kind: str  # "gui" or "api"
    host: str = LOOPBACK


def new_token(path: Path) -> str:
    """A fresh token written to `path` (0600 from its creation; an older file is replaced)."""
    token = secrets.token_urlsafe(32)
    write_private(path, token + "\n")
    return token


class ControlFiles:
    """This process's endpoint and token files: the token at once (the routes need it to be built), the
    endpoint once the server listens (`announce`), both removed by `withdraw`."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.token = new_token(data_dir / TOKEN_FILE)
        self.endpoint: Endpoint | None = None

    def announce(self, port: int, kind: str) -> Endpoint:
        """Write the endpoint file: from now on, front ends started on this data dir attach here."""
        self.endpoint = Endpoint(port=port, pid=os.getpid(), started=time.time(), kind=kind)
        write_private(self.data_dir / ENDPOINT_FILE, json.dumps(asdict(self.endpoint)) + "\n")
        return self.endpoint

    def withdraw(self) -> None:
        """Remove the files if they are still this process's (a newer owner's are left alone)."""
        current = read_endpoint(self.data_dir)
        if current is not None and current.pid != os.getpid():
            return
        for name in (ENDPOINT_FILE, TOKEN_FILE):
            with contextlib.suppress(FileNotFoundError):
                (self.data_dir / name).unlink()


def read_endpoint(data_dir: Path) -> Endpoint | None:
    """The endpoint file's content; None when there is none or it is not one (a half-written or foreign
    file is no reason to fail a command: it then runs on its own)."""
    try:
        raw = json.loads((data_dir / ENDPOINT_FILE).read_text(encoding="utf-8"))
        endpoint = Endpoint(
            port=int(raw["port"]), pid=int(raw["pid"]), started=float(raw["started"]), kind=str(raw["kind"])
        )
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None
    return endpoint if 0 < endpoint.port < 65536 and endpoint.pid > 0 else None


def read_token(data_dir: Path) -> str | None:
    """The token file's content; None when it cannot be read."""
    try:
        token = (data_dir / TOKEN_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return token or None


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process holds that id: alive, but not ours to trust
        return True
    except OSError:
        return False
    return True
