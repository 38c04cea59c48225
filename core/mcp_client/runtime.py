"""The open MCP client sessions of this process, on one event loop of their own.

An MCP session lives inside the async context that opened it (the SDK's stdio transport holds the server
process in a task group), while Daemon's front ends call tools from many event loops (`asyncio.run` per
command, Gradio's threads). So one daemon thread runs one loop that owns every session: each session is
held open by a task that entered the SDK's `Client` and waits to be told to stop, and calls from any loop
are handed to that loop. The thread starts with the first connection; `close()` tells every holder to stop,
which leaves the `Client` context in its own task, so the SDK's shutdown (close stdin, then terminate the
process group) runs and no server process outlives the runtime.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import threading
from collections.abc import Callable, Coroutine, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import IO, Any

logger = logging.getLogger(__name__)

STDERR_TAIL_CHARS = 600  # of a server's own error output, quoted when it fails to start
CLOSE_TIMEOUT_S = 10.0  # the SDK's shutdown takes at most ~6 s per server (grace, SIGTERM, SIGKILL)


class McpUnavailable(Exception):
    """A server could not be reached or listed; the message is the reason shown to the user."""


@dataclass(frozen=True)
class ServerSpec:
    """How to reach one server: a command (stdio) or a URL (streamable HTTP), resolved from the config."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass
class _Session:
    """One held-open session: the task that holds it, and what it offers once ready."""

    spec: ServerSpec
    stop: asyncio.Event
    ready: asyncio.Future[list[Any]]
    task: asyncio.Task[None] | None = None
    client: Any = None  # mcp.Client once connected
    errlog: IO[str] | None = None  # a stdio server's stderr
    stderr_tail: str = ""  # its last words, read when the session ended


class McpRuntime:
    """Owns the MCP sessions of the process: `connect` opens one and lists its tools, `call` uses it,
    `close` ends them all (and their server processes). Safe to call from any thread or event loop."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._sessions: dict[str, _Session] = {}
        self._guard = threading.Lock()
        self._closed = False

    # --- the loop thread ------------------------------------------------------------------------------

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._guard:
            if self._closed:
                raise McpUnavailable("the MCP runtime is closed")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="daemon-mcp", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def _submit(self, work: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
        """Run `work()` on the runtime's loop and wait for it here (a thread that is not that loop's)."""
        return asyncio.run_coroutine_threadsafe(work(), self._ensure_loop()).result()

    # --- public API -----------------------------------------------------------------------------------

    def connect(self, spec: ServerSpec, timeout_s: float) -> list[Any]:
        """Start (or reuse) the session of `spec.name` and return its tools (`mcp.types.Tool`); raises
        `McpUnavailable` with the reason when the server cannot start, answer or list within `timeout_s`."""
        return self._submit(lambda: self._open(spec, timeout_s))

    async def call(self, server: str, tool: str, arguments: Mapping[str, Any], timeout_s: float) -> Any:
        """Call `tool` on `server` from any event loop; returns the SDK's `CallToolResult`. A session whose
        connection was lost is reopened (once) before the call."""
        loop = self._ensure_loop()
        work = asyncio.run_coroutine_threadsafe(self._call(server, tool, dict(arguments), timeout_s), loop)
        # Cancelling this await (the agent's timeout, a stopped turn) cancels the call on the runtime's loop.
        return await asyncio.wrap_future(work)

    def close(self) -> None:
        """End every session (each server process is stopped by the SDK) and the loop thread. Idempotent."""
        with self._guard:
            if self._closed:
                return
            self._closed = True
            loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._stop_all(), loop).result(CLOSE_TIMEOUT_S * 2)
        except Exception:  # noqa: BLE001 - closing must go on: the loop is stopped below either way
            logger.exception("MCP sessions did not close cleanly")
        loop.call_soon_threadsafe(loop.stop)
        thread.join(CLOSE_TIMEOUT_S)
        if not thread.is_alive():
            loop.close()

    # --- on the runtime's loop ------------------------------------------------------------------------

    async def _open(self, spec: ServerSpec, timeout_s: float) -> list[Any]:
        session = self._sessions.get(spec.name)
        if session is None or (session.task is not None and session.task.done()):
            session = _Session(spec, asyncio.Event(), asyncio.get_running_loop().create_future())
            self._sessions[spec.name] = session
            session.task = asyncio.get_running_loop().create_task(self._hold(session))
        try:
            return await asyncio.wait_for(asyncio.shield(session.ready), timeout_s)
        except TimeoutError:
            await self._retire(session)
            raise McpUnavailable(_with_stderr(f"no answer within {timeout_s:g} s", session)) from None
        except McpUnavailable:
            await self._retire(session)
            raise

    async def _hold(self, session: _Session) -> None:
        """Keep one session open until told to stop; leaving the `Client` context stops the server."""
        from mcp import Client

        try:
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(Client(_transport(session)))
                tools = await _list_all_tools(client)
                session.client = client
                session.ready.set_result(tools)
                await session.stop.wait()
        except asyncio.CancelledError:
            if not session.ready.done():
                session.ready.set_exception(McpUnavailable("stopped while starting"))
            raise
        except Exception as exc:  # noqa: BLE001 - every start failure becomes the reason shown to the user
            session.stderr_tail = _read_tail(session.errlog)
            if not session.ready.done():
                session.ready.set_exception(McpUnavailable(_with_stderr(_describe(exc), session)))
            else:
                logger.warning("MCP server %s: session ended: %s", session.spec.name, _describe(exc))
        finally:
            session.client = None
            if session.errlog is not None:
                session.stderr_tail = session.stderr_tail or _read_tail(session.errlog)
                session.errlog.close()

    async def _call(self, server: str, tool: str, arguments: dict[str, Any], timeout_s: float) -> Any:
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED

        session = self._sessions.get(server)
        if session is None:
            raise McpUnavailable(f"MCP server {server!r} was never started")
        if session.client is None:  # its connection was lost: reopen once, then call
            await self._open(session.spec, timeout_s)
            session = self._sessions[server]
        try:
            return await session.client.call_tool(tool, arguments, read_timeout_seconds=timeout_s)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                await self._retire(session)  # the next call reopens it
            raise

    async def _retire(self, session: _Session) -> None:
        """Stop one session and wait for its holder (which stops the server process)."""
        session.stop.set()
        task = session.task
        if task is None or task.done():
            return
        if not session.ready.done():  # still starting, so not waiting for `stop`: cancel the start
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        else:
            try:
                await asyncio.wait_for(asyncio.shield(task), CLOSE_TIMEOUT_S)
            except TimeoutError:  # the SDK's shutdown is bounded; this is the last resort
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            except Exception:  # noqa: BLE001 - the holder logs its own failure
                pass
        if session.ready.done() and not session.ready.cancelled():
            session.ready.exception()  # seen: asyncio would otherwise log "never retrieved"
        session.client = None

    async def _stop_all(self) -> None:
        await asyncio.gather(
            *(self._retire(s) for s in list(self._sessions.values())), return_exceptions=True
        )


def _transport(session: _Session) -> Any:
    """The SDK transport of one spec: a child process (its stderr kept in a temp file for the reason shown
    when it fails) or a streamable HTTP client with the spec's headers."""
    spec = session.spec
    if spec.url is not None:
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        return streamable_http_client(
            spec.url, http_client=create_mcp_http_client(headers=dict(spec.headers))
        )
    from mcp.client.stdio import StdioServerParameters, stdio_client

    assert spec.command is not None
    # closed by `_hold` once the session ends (the stdio transport outlives this function)
    session.errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
    params = StdioServerParameters(
        command=spec.command, args=list(spec.args), env=dict(spec.env), cwd=spec.cwd
    )
    return stdio_client(params, errlog=session.errlog)


async def _list_all_tools(client: Any, max_pages: int = 20) -> list[Any]:
    """Every tool the server lists, page by page (bounded: a server cannot page forever)."""
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(max_pages):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _describe(exc: BaseException) -> str:
    """One line for a start failure; an exception group is described by its first leaf."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"the command was not found ({exc.filename or exc})"
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if not isinstance(exc, McpUnavailable) else text


def _read_tail(log: IO[str] | None) -> str:
    """The end of what a server wrote to stderr, on one line ("" when there is none)."""
    if log is None or log.closed:
        return ""
    try:
        log.flush()
        log.seek(0)
        return " ".join(log.read()[-STDERR_TAIL_CHARS:].split())
    except (OSError, ValueError):
        return ""


def _with_stderr(reason: str, session: _Session) -> str:
    """The reason, with the tail of what the server wrote to stderr (its own explanation, usually)."""
    tail = session.stderr_tail or _read_tail(session.errlog)
    return f"{reason}; its stderr: {tail}" if tail else reason
