"""The control routes a running Daemon (GUI or `api`) serves to its own front ends on this machine.

`ask`, `history`, `memory`, `facts` and `cli` started beside a running Daemon talk to it through these
(ui/attach/client.py) instead of failing on the data dir's lock or loading the models again. They hand out
what the orchestrator and the stores return, in ui/attach/wire.py's format; the CLI renders it with the same
functions it uses on its own stores. Every turn goes through this process's orchestrator: journaled and
remembered like a turn typed into the GUI. All of `/daemon/v1/...` needs `Authorization: Bearer <token>`
with the token of `daemon_token` (ui/attach/endpoint.py); anything else gets 401.

Routes (under `/daemon/v1`): `GET health`, `GET models`, `POST sessions`, `POST turn` (`text`, `session_id`,
`model`: NDJSON run events, one a line; with `"stream": false` the one object `ask --json` prints; a client
that goes away cancels the turn), `GET history`, `POST memory/search`, `GET memory/stats`, `GET facts`,
`POST export` (`path`: the archive `export` writes, from this process's open stores).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.config_memory import INTENT_NAMES, MEMORY_COLLECTION_NAMES
from core.events import RunError, RunEvent
from core.streams import closing_stream
from memory.candidates import QueryContext
from ui.attach.wire import API_VERSION, PREFIX, event_line, scored_payload
from ui.shared.bearer_auth import BearerAuth
from ui.shared.boundary import is_blank
from ui.shared.front_ports import Conversation, FactList, Searchable

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from ui.attach.endpoint import ControlFiles
    from ui.shared.services import Services

MAX_BODY_BYTES = 1_000_000
MAX_TURNS = 4  # turns from attached front ends at once; more wait
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ControlBackend:
    """What the running process lends its attached front ends."""

    conversation: Conversation
    memory: Searchable | None
    facts: FactList | None
    kind: str  # "gui" or "api"
    version: str
    export: Callable[[Path], object] | None = None  # the data folder to one archive (`export` beside it)


class BadRequest(ValueError):
    """A request the routes refuse (400), with the reason for the user."""


class ControlAuth(BearerAuth):
    """The bearer check with a plain JSON 401 body naming the token file."""

    async def _reject(self, send: Any) -> None:
        body = json.dumps({"error": "missing or wrong token: send 'Authorization: Bearer <daemon_token>'"})
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", b'Bearer realm="daemon"'),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body.encode()})


def control_mount(backend: ControlBackend, token: str) -> Any:
    """The routes behind the token check, mounted at `/daemon` (a Starlette `Mount` for any app)."""
    from starlette.routing import Mount

    return Mount(PREFIX, app=ControlAuth(build_control_app(backend), token))


def build_control_app(backend: ControlBackend) -> Any:
    """The control routes as a Starlette app (without the token check: `control_mount` adds it)."""
    from starlette.applications import Starlette
    from starlette.routing import Route

    routes_ = _Routes(backend, asyncio.Semaphore(MAX_TURNS))
    v = f"/{API_VERSION}"
    routes = [
        Route(f"{v}/health", routes_.health, methods=["GET"]),
        Route(f"{v}/models", routes_.models, methods=["GET"]),
        Route(f"{v}/sessions", routes_.new_session, methods=["POST"]),
        Route(f"{v}/turn", routes_.turn, methods=["POST"]),
        Route(f"{v}/history", routes_.history, methods=["GET"]),
        Route(f"{v}/memory/search", routes_.search, methods=["POST"]),
        Route(f"{v}/memory/stats", routes_.stats, methods=["GET"]),
        Route(f"{v}/facts", routes_.facts, methods=["GET"]),
        Route(f"{v}/export", routes_.export, methods=["POST"]),
    ]
    return Starlette(routes=routes, exception_handlers={BadRequest: _bad_request, Exception: _internal})


class _Routes:
    def __init__(self, backend: ControlBackend, slots: asyncio.Semaphore) -> None:
        self._b, self._slots = backend, slots

    async def health(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        b = self._b
        return JSONResponse({"ok": True, "pid": os.getpid(), "kind": b.kind, "version": b.version})

    async def models(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        talk = self._b.conversation
        models = [{"name": n, "description": talk.describe_model(n)} for n in talk.model_names]
        return JSONResponse({"default": talk.default_model, "models": models})

    async def new_session(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        session = await asyncio.to_thread(self._b.conversation.new_session)
        return JSONResponse({"session_id": session})

    async def turn(self, request: Request) -> Response:
        from starlette.responses import StreamingResponse

        body = await _json_body(request)
        text = _text(body, "text")
        session = _optional_text(body, "session_id")
        model = _optional_text(body, "model")
        if model is not None and model not in self._b.conversation.model_names:
            raise BadRequest(f"unknown model {model!r}")
        if body.get("stream", True) is False:  # one JSON object, as `ask --json` prints it
            return await self._answered(request, text, session, model)
        lines = self._events(text, session, model)
        return StreamingResponse(
            lines, media_type="application/x-ndjson", headers={"cache-control": "no-cache"}
        )

    async def _events(self, text: str, session: str | None, model: str | None) -> AsyncIterator[bytes]:
        # A client that disconnects cancels this generator: closing the turn inside it journals the turn
        # as cancelled, as the GUI's stop button does.
        async with self._slots:
            run = self._b.conversation.run_turn(text, session_id=session, model=model)
            try:
                async with closing_stream(run):
                    async for event in run:
                        yield event_line(event)
            except Exception:  # a bug: the status is sent, so the stream ends with an error event
                logger.exception("control turn failed")
                yield event_line(RunError("the running Daemon failed on this turn; see its log", "internal"))

    async def _answered(
        self, request: Request, text: str, session: str | None, model: str | None
    ) -> Response:
        from starlette.responses import JSONResponse

        from ui.shared.disconnect import until_disconnect
        from ui.shared.payloads import ask_result

        async def collect() -> list[RunEvent]:
            async with self._slots:
                run = self._b.conversation.run_turn(text, session_id=session, model=model)
                async with closing_stream(run):
                    return [event async for event in run]

        events = await until_disconnect(request, collect())  # a client that leaves cancels the turn
        if events is None:
            return JSONResponse({"error": "the client went away; the turn was cancelled"}, status_code=499)
        payload, _ = ask_result(events)
        return JSONResponse(payload)

    async def history(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        session = request.query_params.get("session") or None
        limit = _limit(request.query_params.get("limit"))
        turns = await asyncio.to_thread(self._b.conversation.history, session, limit)
        return JSONResponse({"turns": [asdict(t) for t in turns]})

    async def search(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        memory = _needed(self._b.memory, "memory")
        body = await _json_body(request)
        ctx = _query(body)
        collections = body.get("collections")
        if collections is not None and (
            not isinstance(collections, list) or not set(collections) <= set(MEMORY_COLLECTION_NAMES)
        ):
            raise BadRequest(f"'collections' must list some of: {', '.join(MEMORY_COLLECTION_NAMES)}")
        k = body.get("k", 10)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 1000:
            raise BadRequest("'k' must be a whole number from 1 to 1000")
        results = await memory.search(ctx, collections=collections, k=k)
        return JSONResponse({"results": [scored_payload(r) for r in results]})

    async def stats(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        memory = _needed(self._b.memory, "memory")
        return JSONResponse({"collections": await asyncio.to_thread(memory.stats)})

    async def facts(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        facts = _needed(self._b.facts, "facts")
        status = request.query_params.get("status") or None
        if status not in (None, "current", "superseded"):
            raise BadRequest("'status' must be current or superseded")
        found = await asyncio.to_thread(facts.list_facts, status)
        return JSONResponse({"facts": [asdict(f) for f in found]})

    async def export(self, request: Request) -> Response:
        """`export PATH` run by this process, which holds the stores: a consistent copy while it serves."""
        from starlette.responses import JSONResponse

        from core.errors import DaemonError

        export = _needed(self._b.export, "export")
        target = Path(_text(await _json_body(request), "path"))
        if not target.is_absolute():
            raise BadRequest("'path' must be absolute (the client resolves it)")
        try:
            report = await asyncio.to_thread(export, target)
        except DaemonError as error:  # the file exists, a store cannot be read: the user's to fix
            raise BadRequest(str(error)) from None
        return JSONResponse({**asdict(report), "path": str(target)})


def _needed(part: Any, name: str) -> Any:
    if part is None:
        raise BadRequest(f"the running Daemon has no {name} store open")
    return part


async def _json_body(request: Request) -> dict[str, Any]:
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise BadRequest(f"the request body is larger than {MAX_BODY_BYTES:,} bytes")
    try:
        decoded = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the request body is not valid JSON: {exc}") from None
    if not isinstance(decoded, dict):
        raise BadRequest("the request body must be a JSON object")
    return decoded


def _text(body: Mapping[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or is_blank(value):
        raise BadRequest(f"'{key}' must be a non-empty string")
    return value


def _optional_text(body: Mapping[str, Any], key: str) -> str | None:
    return None if body.get(key) is None else _text(body, key)


def _limit(raw: str | None) -> int | None:
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise BadRequest("'limit' must be a positive whole number")
    return int(raw)


def _query(body: Mapping[str, Any]) -> QueryContext:
    query = _text(body, "query")
    intent = body.get("intent", "general")
    if intent not in INTENT_NAMES:
        raise BadRequest(f"unknown intent {intent!r}; choose one of: {', '.join(INTENT_NAMES)}")
    now = body.get("now")
    if not isinstance(now, int | float) or isinstance(now, bool):
        raise BadRequest("'now' must be a time in epoch seconds")
    return QueryContext(query=query, now=float(now), intent=intent)


async def _bad_request(request: Request, exc: Exception) -> Response:
    from starlette.responses import JSONResponse

    return JSONResponse({"error": str(exc)}, status_code=400)


async def _internal(request: Request, exc: Exception) -> Response:
    from starlette.responses import JSONResponse

    logger.error("control request %s failed", request.url.path, exc_info=exc)
    return JSONResponse({"error": "internal error in the running Daemon; see its log"}, status_code=500)


def open_control(services: Services, kind: str) -> tuple[ControlFiles, Any]:
    """This process's token file and the control routes over its services (mounted at `/daemon`); the
    caller announces the endpoint once it listens and withdraws the files when it stops."""
    from ui.attach.endpoint import ControlFiles

    files = ControlFiles(services.config.data_dir)
    backend = ControlBackend(
        services.orchestrator,
        services.memory,
        services.facts,
        kind,
        services.version,
        services.export_archive,
    )
    return files, control_mount(backend, files.token)


def attachable_bind(host: str) -> bool:
    """Whether front ends on this machine reach a server bound to `host` at 127.0.0.1."""
    from ui.shared.security import is_loopback

    return host.strip() in ("0.0.0.0", "") or (is_loopback(host) and ":" not in host.strip("[]"))
