"""`python main.py api`: Daemon behind OpenAI's chat-completions API, for any OpenAI-compatible client.

Routes: `POST /v1/chat/completions` (streamed or not; ui/api/wire.py speaks the wire format,
ui/api/conversation.py turns a request into one turn), `GET /v1/models`, and `GET /health` (no token:
Docker's HEALTHCHECK); optionally the control routes under `/daemon/` (ui/attach/control_routes.py, their own
token). Every turn goes through the same orchestrator as the CLI and GUI, so it is journaled and remembered.
Safety, outermost first: the Host-header allowlist of a loopback bind (DNS rebinding;
ui/shared/security.py), the bearer token on everything but `/health` (ui/shared/bearer_auth.py's check with
an OpenAI error body), a body size limit, and a client that goes away cancels its turn (journaled
`cancelled`, as the GUI's stop does).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from core.events import RunEvent
from core.streams import closing_stream
from ui.api.conversation import SESSION_HEADER, RequestError, models_list, read_request
from ui.api.wire import SSE_DONE, Reply, collect, error_body, sse, stream_chunks
from ui.attach.wire import PREFIX
from ui.shared.bearer_auth import BearerAuth
from ui.shared.disconnect import until_disconnect
from ui.shared.security import HostAllowlist, allowed_hosts_for

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

MAX_BODY_BYTES = 4_000_000  # clients resend the whole conversation; far beyond any real chat, short of abuse
MAX_CONCURRENT_TURNS = 4  # as the GUI's queue: more wait for a free slot
OPEN_PATHS = frozenset({"/health"})  # answered without the token (Docker's HEALTHCHECK has none)
HEALTH_TIMEOUT_S = 3.0
_T = TypeVar("_T")
logger = logging.getLogger(__name__)
Health = Callable[[], dict[str, Any]]


class TurnRunner(Protocol):
    """What the API needs from the orchestrator (core/orchestrator.py)."""

    @property
    def model_names(self) -> list[str]: ...

    def run_turn(
        self,
        text: str,
        *,
        session_id: str | None = None,
        model: str | None = None,
        cancel: asyncio.Event | None = None,
    ) -> AsyncIterator[RunEvent]: ...


class TooLarge(Exception):
    """The request body passed the size limit."""


class ApiBearerAuth(BearerAuth):
    """ui/shared/bearer_auth.py's bearer check, with OpenAI's 401 body and `/health` left open; paths under
    `own_auth` (the control routes, which check their own token) pass on to the app."""

    def __init__(self, app: Any, token: str, own_auth: str | None = None) -> None:
        super().__init__(app, token)
        self._own_auth = own_auth

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and self._own_auth and path.startswith(self._own_auth):
            await self._app(scope, receive, send)
            return
        if scope["type"] == "http" and path in OPEN_PATHS:
            await self._app(scope, receive, send)
            return
        await super().__call__(scope, receive, send)

    async def _reject(self, send: Any) -> None:
        message = (
            "missing or wrong API token: send 'Authorization: Bearer <token>' (DAEMON_API_TOKEN or api_token)"
        )
        body = json.dumps(error_body(message, "invalid_request_error", "invalid_api_key")).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", b'Bearer realm="daemon"'),
        ]
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def build_api(
    runner: TurnRunner,
    token: str,
    bind_host: str,
    health: Health,
    *,
    max_body: int = MAX_BODY_BYTES,
    max_turns: int = MAX_CONCURRENT_TURNS,
    control: Any | None = None,
) -> Any:
    """The ASGI app: routes behind the token check, behind the Host allowlist of a loopback bind.
    `control` (ui/attach/control_routes.py's `/daemon` mount, behind its own token) joins the routes."""
    from starlette.applications import Starlette
    from starlette.routing import Route

    api = _Api(runner, health, max_body, asyncio.Semaphore(max_turns))
    routes = [
        Route("/v1/chat/completions", api.chat, methods=["POST"]),
        Route("/v1/models", api.models, methods=["GET"]),
        Route("/health", api.health, methods=["GET"]),
    ]
    if control is not None:
        routes.append(control)
    handlers = {404: _not_found, 405: _not_allowed, Exception: _internal}
    app: Any = Starlette(routes=routes, exception_handlers=handlers)
    app = ApiBearerAuth(app, token, own_auth=f"{PREFIX}/" if control is not None else None)
    allowed = allowed_hosts_for(bind_host)
    return HostAllowlist(app, allowed) if allowed is not None else app


class _Api:
    """The route handlers over one orchestrator."""

    def __init__(self, runner: TurnRunner, health: Health, max_body: int, slots: asyncio.Semaphore):
        self._runner, self._health, self._max_body, self._slots = runner, health, max_body, slots
        self._created = int(time.time())

    async def models(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        return JSONResponse(models_list(self._runner.model_names, self._created))

    async def health(self, request: Request) -> Response:
        from starlette.responses import JSONResponse

        try:
            report = await asyncio.wait_for(asyncio.to_thread(self._health), HEALTH_TIMEOUT_S)
        except TimeoutError:
            report = {"status": "degraded", "checks": {"health": "timed out"}}
        return JSONResponse(report, status_code=503 if report["status"] == "down" else 200)

    async def chat(self, request: Request) -> Response:
        from starlette.responses import JSONResponse, StreamingResponse

        try:
            body = json.loads(await read_body(request, self._max_body))
            turn = read_request(body, request.headers, self._runner.model_names)
        except TooLarge:
            return _error(
                413, f"the request body is larger than {self._max_body:,} bytes", "request_too_large"
            )
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            return _error(400, f"the request body is not valid JSON: {exc}", "invalid_json")
        except RequestError as exc:
            return _error(400, str(exc), "invalid_request", param=exc.param)
        headers = {SESSION_HEADER: turn.session_id}
        reply = Reply(turn.model_id)

        def events() -> AsyncIterator[RunEvent]:
            return self._runner.run_turn(turn.text, session_id=turn.session_id, model=turn.model)

        if turn.stream:
            # Starlette cancels the stream when the client disconnects: the cancellation reaches the
            # orchestrator's turn, which journals it as `cancelled`.
            lines = self._streamed(events, reply, turn.include_usage)
            sse_headers = {**headers, "cache-control": "no-cache", "x-accel-buffering": "no"}
            return StreamingResponse(lines, media_type="text/event-stream", headers=sse_headers)
        outcome = await until_disconnect(request, self._answered(events, reply))
        if outcome is None:  # nobody is left to read it
            return _error(499, "the client went away; the turn was cancelled", "client_closed")
        status, payload = outcome
        return JSONResponse(payload, status_code=status, headers=headers)

    async def _streamed(
        self, events: Callable[[], AsyncIterator[RunEvent]], reply: Reply, include_usage: bool
    ) -> AsyncIterator[bytes]:
        async with self._slots:
            run = events()
            try:
                # closed inside this request, never later by the garbage collector
                async with closing_stream(run):
                    async for line in stream_chunks(run, reply, include_usage=include_usage):
                        yield line
            except Exception:  # a bug: the headers are sent, so the stream ends with an error event
                logger.exception("API stream failed")
                yield sse(error_body("internal error; see the log for details", "server_error", "internal"))
                yield SSE_DONE

    async def _answered(
        self, events: Callable[[], AsyncIterator[RunEvent]], reply: Reply
    ) -> tuple[int, dict[str, Any]]:
        async with self._slots:
            run = events()
            async with closing_stream(run):
                return await collect(run, reply)


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refused (`TooLarge`) as soon as it passes `limit` bytes, declared or not."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge
    body = bytearray()
    async for part in request.stream():
        body += part
        if len(body) > limit:
            raise TooLarge
    return bytes(body)


def _error(status: int, message: str, code: str, *, param: str | None = None) -> Response:
    from starlette.responses import JSONResponse

    kind = "invalid_request_error" if status < 500 else "server_error"
    body = error_body(message, kind, code)
    body["error"]["param"] = param
    return JSONResponse(body, status_code=status)


async def _internal(request: Request, exc: Exception) -> Response:
    # A bug, not a user-facing condition: the traceback goes to the data dir's log, the client gets JSON.
    logger.error("API request %s failed", request.url.path, exc_info=exc)
    return _error(500, "internal error; see the log for details", "internal")


async def _not_found(request: Request, exc: Exception) -> Response:
    return _error(404, f"no route {request.url.path}; see docs/api.md", "not_found")


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return _error(405, f"{request.method} is not allowed on {request.url.path}", "method_not_allowed")


def health_report(checks: Mapping[str, str], essential: Sequence[str] = ("journal",)) -> dict[str, Any]:
    """`ok` when every check says ok, `down` when an essential one does not (no turn can be served),
    else `degraded` (answers still work, something around them does not)."""
    failing = [name for name, state in checks.items() if state != "ok"]
    status = "ok" if not failing else "down" if set(failing) & set(essential) else "degraded"
    return {"status": status, "checks": dict(checks)}
