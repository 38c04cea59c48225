"""Talking to the Daemon that already runs on this data dir, instead of loading everything again.

`attach` reads the endpoint and token files the running process wrote (ui/attach/endpoint.py) and returns a
`DaemonClient` only when that process is alive and answers `/health` with the token as the same pid: a file
a crashed process left behind is ignored, and the command runs on its own as it always did. The proxies
(`RemoteConversation`, `RemoteMemory`, `RemoteFacts`) stand in for the orchestrator and the stores
(ui/shared/front_ports.py), so the CLI renders what the running Daemon returns with its usual functions.

Once attached, a failure is never papered over by opening the stores here (the running process holds their
lock): the user gets a `DaemonUnavailable` saying what happened and that nothing ran in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import DaemonError, UserInputError
from core.events import Done, RunError, RunEvent, TextDelta
from core.ports import FactView, TurnRecord
from memory.candidates import QueryContext, ScoredMemory
from ui.attach.endpoint import Endpoint, pid_alive, read_endpoint, read_token
from ui.attach.wire import API_VERSION, PREFIX, WireError, fact_from, read_event, scored_from, turn_from

if TYPE_CHECKING:
    import httpx

PROBE_TIMEOUT_S = 3.0  # /health answers from the event loop at once
BUSY_WAIT_S = 60.0  # a loop busy loading a model on the first turn answers once it is done
REQUEST_TIMEOUT_S = 120.0  # a memory search on a busy machine
CONNECT_TIMEOUT_S = 5.0


class DaemonUnavailable(DaemonError):
    """The running Daemon refused a request or stopped answering; nothing ran in this process."""


@dataclass(frozen=True)
class DaemonClient:
    """HTTP calls to one running Daemon's control routes, with its token."""

    endpoint: Endpoint
    token: str

    def url(self, path: str) -> str:
        return f"http://{self.endpoint.host}:{self.endpoint.port}{PREFIX}/{API_VERSION}/{path}"

    @property
    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.token}"}

    def describe(self) -> str:
        """`the running Daemon (api, pid 123, port 8765)`."""
        e = self.endpoint
        return f"the running Daemon ({e.kind}, pid {e.pid}, port {e.port})"

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        """GET a route; its JSON body."""
        return self._call("GET", path, params=dict(params or {}))

    def post(self, path: str, body: Mapping[str, Any]) -> Any:
        """POST a JSON body to a route; its JSON body."""
        return self._call("POST", path, json=dict(body))

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        import httpx

        timeout = httpx.Timeout(REQUEST_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
        try:
            response = httpx.request(method, self.url(path), headers=self.headers, timeout=timeout, **kwargs)
        except httpx.HTTPError as exc:
            raise self.lost(exc) from None
        self.check(response)
        try:
            return response.json()
        except ValueError:
            raise DaemonUnavailable(
                f"{self.describe()} answered {path} with something that is not JSON"
            ) from None

    def check(self, response: httpx.Response) -> None:
        """Raise what a refusal means: 400 is the user's input (as it would be here), the rest is theirs."""
        if response.status_code < 400:
            return
        message = _error_text(response)
        if response.status_code == 400:
            raise UserInputError(message)
        if response.status_code == 401:
            raise DaemonUnavailable(
                f"{self.describe()} refused the token in its daemon_token file ({message}); "
                "nothing ran here. Restart it, or stop it to run this command on its own."
            )
        raise DaemonUnavailable(
            f"{self.describe()} failed on this request ({response.status_code}: {message}); nothing ran here"
        )

    def lost(self, error: BaseException) -> DaemonUnavailable:
        """The error for a connection that failed or broke mid-request."""
        return DaemonUnavailable(
            f"{self.describe()} stopped answering during this request ({type(error).__name__}); nothing ran "
            "here, because it holds the data dir. Try again, or stop it to run this command on its own."
        )


def _error_text(response: httpx.Response) -> str:
    with contextlib.suppress(ValueError, AttributeError):
        return str(response.json()["error"])
    return response.text[:200] or response.reason_phrase


def attach(
    data_dir: Path, *, timeout_s: float = PROBE_TIMEOUT_S, busy_wait_s: float = BUSY_WAIT_S
) -> DaemonClient | None:
    """A client of the Daemon running on `data_dir`, or None when none runs (no file, a dead pid, a port
    that does not answer `/health` with the token, or another process answering there)."""
    endpoint = read_endpoint(data_dir)
    if endpoint is None or not pid_alive(endpoint.pid):
        return None
    token = read_token(data_dir)
    if token is None:
        return None
    client = DaemonClient(endpoint, token)
    answer = _probe(client, timeout_s)
    if answer == "busy":  # it listens but has not answered yet (loading a model): give it longer
        print(f"waiting for {client.describe()}, which is busy…", file=sys.stderr)
        answer = _probe(client, busy_wait_s)
    return client if answer == "ok" else None


def _probe(client: DaemonClient, timeout_s: float) -> str:
    """`ok` (it answers as the endpoint's pid), `busy` (connected, no answer in time) or `no`."""
    import httpx

    try:
        response = httpx.get(client.url("health"), headers=client.headers, timeout=timeout_s)
        body = response.json()
    except (httpx.ConnectError, httpx.ConnectTimeout):
        return "no"
    except httpx.TimeoutException:
        return "busy"
    except (httpx.HTTPError, ValueError):
        return "no"
    ours = response.status_code == 200 and isinstance(body, dict) and body.get("pid") == client.endpoint.pid
    return "ok" if ours else "no"


class RemoteConversation:
    """The orchestrator of the running Daemon, as the CLI uses it (`Conversation` of
    ui/shared/front_ports.py)."""

    def __init__(self, client: DaemonClient) -> None:
        self._client = client
        listing = client.get("models")
        self.default_model: str = listing["default"]
        self._models: dict[str, str] = {m["name"]: m["description"] for m in listing["models"]}

    @property
    def model_names(self) -> list[str]:
        return list(self._models)

    def describe_model(self, name: str) -> str:
        return self._models[name]

    def new_session(self) -> str:
        return str(self._client.post("sessions", {})["session_id"])

    def history(self, session_id: str | None = None, limit: int | None = None) -> list[TurnRecord]:
        params = {k: v for k, v in (("session", session_id), ("limit", limit)) if v is not None}
        return [turn_from(t) for t in self._client.get("history", params)["turns"]]

    async def run_turn(
        self,
        text: str,
        *,
        session_id: str | None = None,
        model: str | None = None,
        cancel: asyncio.Event | None = None,
    ) -> AsyncIterator[RunEvent]:
        """The turn's events as the running Daemon streams them. `cancel` closes the stream (the Daemon
        then journals the turn as cancelled) and ends with a cancelled `Done` holding the text so far."""
        import httpx

        client = self._client
        body = {"text": text, "session_id": session_id, "model": model}
        timeout = httpx.Timeout(None, connect=CONNECT_TIMEOUT_S)  # a model may think long before a word
        shown: list[str] = []
        ended = False
        try:
            async with (
                httpx.AsyncClient(timeout=timeout) as http,
                http.stream("POST", client.url("turn"), json=body, headers=client.headers) as response,
            ):
                if response.status_code >= 400:
                    await response.aread()
                    client.check(response)
                async for line in _until(response.aiter_lines(), cancel):
                    if not line.strip():
                        continue
                    event = read_event(line)
                    if isinstance(event, TextDelta):
                        shown.append(event.text)
                    ended = ended or isinstance(event, Done | RunError)
                    yield event
        except httpx.HTTPError as exc:
            raise client.lost(exc) from None
        except WireError as exc:
            raise DaemonUnavailable(f"{client.describe()} sent an unreadable event: {exc}") from None
        if cancel is not None and cancel.is_set() and not ended:
            yield Done("".join(shown), exit_reason="cancelled", session_id=session_id or "")
        elif not ended:
            raise DaemonUnavailable(f"{client.describe()} ended the turn without an answer; see its log")


async def _until(lines: AsyncIterator[str], cancel: asyncio.Event | None) -> AsyncIterator[str]:
    """`lines` until they end or `cancel` is set, whichever comes first."""
    if cancel is None:
        async for line in lines:
            yield line
        return
    stop = asyncio.ensure_future(cancel.wait())
    try:
        while True:
            following = asyncio.ensure_future(anext(lines))
            await asyncio.wait({following, stop}, return_when=asyncio.FIRST_COMPLETED)
            if not following.done():
                following.cancel()
                return
            try:
                yield following.result()
            except StopAsyncIteration:
                return
    finally:
        stop.cancel()


class RemoteMemory:
    """The running Daemon's memory store, for `memory search|stats`."""

    def __init__(self, client: DaemonClient) -> None:
        self._client = client

    async def search(
        self, ctx: QueryContext, *, collections: Sequence[str] | None = None, k: int = 10
    ) -> list[ScoredMemory]:
        body = {
            "query": ctx.query,
            "now": ctx.now,
            "intent": ctx.intent,
            "collections": list(collections) if collections is not None else None,
            "k": k,
        }
        answer = await asyncio.to_thread(self._client.post, "memory/search", body)
        return [scored_from(r) for r in answer["results"]]

    def stats(self) -> dict[str, int]:
        return dict(self._client.get("memory/stats")["collections"])


class RemoteFacts:
    """The running Daemon's facts, for `facts list`."""

    def __init__(self, client: DaemonClient) -> None:
        self._client = client

    def list_facts(self, status: str | None = None) -> list[FactView]:
        params = {"status": status} if status else {}
        return [fact_from(f) for f in self._client.get("facts", params)["facts"]]


def started_ago(endpoint: Endpoint) -> str:
    """How long ago the running Daemon started, for the REPL's banner (`3 min ago`)."""
    minutes = max(0, int((time.time() - endpoint.started) // 60))
    return "just now" if minutes == 0 else f"{minutes} min ago"


def attached_banner(client: DaemonClient, model: str) -> str:
    """The REPL's first lines when another process holds the data dir and does the work."""
    e = client.endpoint
    return (
        f"Attached to the running Daemon ({e.kind}, pid {e.pid}, port {e.port}, started "
        f"{started_ago(e)}) - model: {model}\n"
        "Your turns run there: it journals and remembers them, and processes the sessions when it stops."
    )
