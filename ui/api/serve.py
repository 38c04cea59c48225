"""`python main.py api [--host H] [--port P]`: checks, the token, one uvicorn server, and a clean end.

Before any model loads: a non-loopback address needs `DAEMON_API_TOKEN` (else exit 2, one line). Then the
services are built (the data dir's lock: one process per data dir), the token is read from the environment or
from `api_token` in the data dir (created 0600 on first use; its path printed, the token itself printed only
when it was just created and stderr is a terminal, never logged), and uvicorn serves until Ctrl-C or SIGTERM;
then, as the GUI does, the sessions this server served get their session-end processing. On a loopback or
wildcard bind it also serves the control routes (ui/attach/control_routes.py) that `ask`, `history`,
`cli`… started on the same data dir attach to, and announces them in the data dir once it listens.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError, UserInputError
from ui.shared.security import is_loopback

if TYPE_CHECKING:
    from ui.shared.services import Services

TOKEN_ENV = "DAEMON_API_TOKEN"
TOKEN_FILE = "api_token"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MIN_TOKEN_CHARS = 16
GRACEFUL_S = 5  # open streams get this long to finish at shutdown, then they are cancelled (and journaled)


def check_api_bind(host: str, env_token: str | None) -> None:
    """Refuse a non-loopback bind without a token from the environment (a generated file token is unknown
    to anyone on the network, but a server reachable from it must be configured deliberately), and a
    token from the environment too short to be a secret."""
    if env_token is not None and (len(env_token) < MIN_TOKEN_CHARS or any(c.isspace() for c in env_token)):
        raise ConfigError(f"{TOKEN_ENV} must be one word of at least {MIN_TOKEN_CHARS} characters")
    if env_token is None and not is_loopback(host):
        raise ConfigError(
            f"refusing to serve the API on {host!r} without {TOKEN_ENV}: anyone who can reach that "
            f"address could read your memory. Set {TOKEN_ENV} to a long random secret, or bind "
            "127.0.0.1 (the default)."
        )


def api_token(env_token: str | None, data_dir: Path) -> tuple[str, bool]:
    """(the token, whether it was just created): the environment's, else the data dir's `api_token`."""
    from ui.shared.bearer_auth import read_or_create_token

    if env_token is not None:
        return env_token, False
    path = data_dir / TOKEN_FILE
    existed = path.exists()  # under the data dir's lock: no other Daemon creates it meanwhile
    return read_or_create_token(path, "API"), not existed


def api_command(args: Any, env: dict[str, str], build: Callable[[], Services]) -> int:
    """Check the bind, build the services, serve until stopped, then end the sessions served."""
    host = args.api_host or DEFAULT_HOST
    port = DEFAULT_PORT if args.api_port is None else args.api_port
    env_token = env.get(TOKEN_ENV) or None
    check_api_bind(host, env_token)
    listener = listen(host, port)  # before the models load: a taken port is a quick, clear error
    try:
        services = build()
    except BaseException:
        listener.close()
        raise
    try:
        token, created = api_token(env_token, services.config.data_dir)
        announce_token(services.config.data_dir / TOKEN_FILE, token if created else None, env_token)
        return _serve_and_end(services, token, host, listener)
    finally:
        listener.close()
        services.close()


def announce_token(path: Path, new_token: str | None, env_token: str | None) -> None:
    """Say where the token comes from; show a just-created one (`new_token`) once, to a terminal only."""
    if env_token is not None:
        print(f"API token: from {TOKEN_ENV}", file=sys.stderr)
        return
    print(f"API token: in {path}", file=sys.stderr)
    if new_token is not None and sys.stderr.isatty():  # shown once, to a person; never to a log file
        print(f"  new token (shown only this once): {new_token}", file=sys.stderr)


def _serve_and_end(services: Services, token: str, host: str, listener: socket.socket) -> int:
    from ui.api.server import build_api
    from ui.attach.control_routes import attachable_bind, open_control
    from ui.shared.idle import sessions_served
    from ui.shared.scheduled_snapshots import snapshots_scheduled

    # the control routes: `ask`, `history`, `cli`… started on this data dir are served here (no 2nd load)
    files, control = open_control(services, "api") if attachable_bind(host) else (None, None)
    app = build_api(services.orchestrator, token, host, services_health(services), control=control)
    announce = (lambda port: files.announce(port, "api")) if files is not None else None
    session = services.config.session
    # the sessions this server serves end with it (after the control files are withdrawn)
    with (
        sessions_served(services.sessions, session.idle_end_minutes, session.shutdown_budget_s),
        snapshots_scheduled(services.snapshots),
    ):
        try:
            asyncio.run(serve(app, listener, host, on_ready=announce))
        finally:
            if files is not None:  # front ends started from now on run on their own
                files.withdraw()
    return 0


def listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound here so a taken port or a bad address is a clear error (exit 2)."""
    try:
        family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (OSError, UnicodeError) as exc:
        raise UserInputError(f"cannot listen on {host!r}: {exc}") from None
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(address)
        listener.listen(128)
    except OSError as exc:
        listener.close()
        raise UserInputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return listener


async def serve(
    app: Any, listener: socket.socket, host: str, on_ready: Callable[[int], object] | None = None
) -> None:
    """One uvicorn server on `listener` until Ctrl-C or SIGTERM (uvicorn finishes open requests for up to
    GRACEFUL_S seconds, then raises the signal again for the entry's handler); `on_ready(port)` once it
    listens."""
    import uvicorn

    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,  # a log line per request would carry session ids into the logs
        lifespan="off",
        server_header=False,
        timeout_graceful_shutdown=GRACEFUL_S,
    )
    web = uvicorn.Server(config)
    task = asyncio.ensure_future(web.serve(sockets=[listener]))
    while not web.started and not task.done():
        await asyncio.sleep(0.05)
    if web.started:
        port = listener.getsockname()[1]
        if on_ready is not None:
            on_ready(port)
        shown = f"[{host}]" if ":" in host else host
        print(f"Daemon API at http://{shown}:{port}/v1  (Ctrl-C to stop)", file=sys.stderr, flush=True)
    await task


def services_health(services: Services) -> Callable[[], dict[str, Any]]:
    """The `/health` report over the built services: cheap reads only (the journal's newest turn, the
    memory store's counts); `models` lists what can answer."""
    from ui.api.server import health_report

    def report() -> dict[str, Any]:
        checks = {
            "journal": _check(lambda: services.orchestrator.history(None, 1)),
            "memory": _check(services.memory.stats) if services.memory is not None else "off",
            "facts": "ok" if services.facts is not None else "off",
            "session_end": "ok" if services.sessions is not None else "off",
        }
        result = health_report(checks)
        result["models"] = services.orchestrator.model_names
        return result

    return report


def _check(probe: Callable[[], object]) -> str:
    try:
        probe()
    except Exception as exc:  # noqa: BLE001 - a health probe reports, never raises
        return f"failing: {type(exc).__name__}"
    return "ok"
