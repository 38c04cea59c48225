"""The API app in-process over a real orchestrator and journal (a scripted agent instead of a model): the
official `openai` client through Starlette's TestClient, the token and Host checks, the OpenAI error bodies,
and a client that goes away cancelling its turn, journaled as `cancelled`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from openai import AuthenticationError, OpenAI
from starlette.testclient import TestClient

from core.errors import StorageError, UserInputError
from core.events import Done, RunEvent, TextDelta
from core.orchestrator import ModelChoice, Orchestrator
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import ContextGatherer, JournalHistory
from core.types import Message, Usage
from memory.journal import Journal
from ui.api.conversation import SESSION_HEADER
from ui.api.server import build_api, health_report

TOKEN = "test-token-0123456789abcdef"
BASE = "http://127.0.0.1:8765"
AUTH = {"authorization": f"Bearer {TOKEN}"}
Script = Callable[[list[Message]], AsyncIterator[RunEvent]]


async def echo(messages: list[Message]) -> AsyncIterator[RunEvent]:
    words = messages[-1].content.rsplit("\n", 1)[-1].split(" ")
    for word in words:
        yield TextDelta(word + " ")
    yield Done(answer=" ".join(words) + " ", usage=Usage(10, len(words)), model="scripted")


class ScriptedAgent:
    def __init__(self, script: Script) -> None:
        self.script = script

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        async for event in self.script(messages):
            yield event


def orchestrator(tmp_path: Path, script: Script = echo) -> tuple[Orchestrator, Journal]:
    journal = Journal(tmp_path / "journal.sqlite3")
    agent = ScriptedAgent(script)
    built = Orchestrator(
        models=[ModelChoice("scripted", agent), ModelChoice("other", agent)],
        log=journal,
        context=ContextGatherer(JournalHistory(journal, 8)),
        prompt=PromptBuilder("You are a test.", EstimateCounter(), 8000),
    )
    return built, journal


def healthy() -> dict[str, Any]:
    return health_report({"journal": "ok", "memory": "ok"})


@pytest.fixture
def served(tmp_path: Path) -> tuple[TestClient, Journal]:
    runner, journal = orchestrator(tmp_path)
    return TestClient(build_api(runner, TOKEN, "127.0.0.1", healthy), base_url=BASE), journal


def test_the_openai_client_gets_an_answer_and_the_turn_is_journaled(
    served: tuple[TestClient, Journal],
) -> None:
    http, journal = served
    client = OpenAI(base_url=f"{BASE}/v1", api_key=TOKEN, http_client=http)
    reply = client.chat.completions.create(
        model="daemon",
        messages=[{"role": "system", "content": "Be terse."}, {"role": "user", "content": "hello there"}],
    )
    content = reply.choices[0].message.content
    assert content is not None and content.strip() == "hello there"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage is not None and reply.usage.prompt_tokens == 10
    [turn] = journal.turns()
    assert (turn.user, turn.assistant.strip(), turn.status) == ("hello there", "hello there", "complete")


def test_the_openai_client_streams_deltas(served: tuple[TestClient, Journal]) -> None:
    http, journal = served
    client = OpenAI(base_url=f"{BASE}/v1", api_key=TOKEN, http_client=http)
    chunks = list(
        client.chat.completions.create(
            model="other", messages=[{"role": "user", "content": "one two three"}], stream=True
        )
    )
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text.split() == ["one", "two", "three"]
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert {c.model for c in chunks} == {"other"}
    assert journal.turns()[0].status == "complete"


def test_the_same_conversation_stays_in_one_session(served: tuple[TestClient, Journal]) -> None:
    http, journal = served
    first = [{"role": "user", "content": "remember the tulips"}]
    http.post("/v1/chat/completions", headers=AUTH, json={"messages": first})
    later = [*first, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "what flowers?"}]
    answer = http.post("/v1/chat/completions", headers=AUTH, json={"messages": later})
    turns = journal.turns()
    assert [t.user for t in turns] == ["remember the tulips", "what flowers?"]
    assert turns[0].session_id == turns[1].session_id == answer.headers[SESSION_HEADER]
    assert answer.json()["daemon"]["session_id"] == turns[0].session_id


def test_models_lists_daemon_and_the_configured_ones(served: tuple[TestClient, Journal]) -> None:
    http, _ = served
    client = OpenAI(base_url=f"{BASE}/v1", api_key=TOKEN, http_client=http)
    assert [m.id for m in client.models.list()] == ["daemon", "scripted", "other"]


@pytest.mark.parametrize(
    "headers", [{}, {"authorization": "Bearer wrong-token-0123456789"}, {"authorization": TOKEN}]
)
def test_a_missing_or_wrong_token_is_401_with_an_openai_error(
    served: tuple[TestClient, Journal], headers: dict[str, str]
) -> None:
    http, journal = served
    answer = http.post(
        "/v1/chat/completions", headers=headers, json={"messages": [{"role": "user", "content": "x"}]}
    )
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "invalid_api_key"
    assert set(answer.json()["error"]) == {"message", "type", "param", "code"}
    assert journal.turns() == []
    assert http.get("/v1/models", headers=headers).status_code == 401


def test_the_sdk_raises_authentication_error_on_a_wrong_token(served: tuple[TestClient, Journal]) -> None:
    http, _ = served
    client = OpenAI(base_url=f"{BASE}/v1", api_key="wrong-token-0123456789", http_client=http, max_retries=0)
    with pytest.raises(AuthenticationError):
        client.models.list()


def test_health_needs_no_token(served: tuple[TestClient, Journal]) -> None:
    http, _ = served
    answer = http.get("/health")
    assert answer.status_code == 200
    assert answer.json()["status"] == "ok"


@pytest.mark.parametrize(("state", "status"), [("ok", "ok"), ("failing", "degraded")])
def test_health_reports_degraded_when_a_side_system_fails(state: str, status: str) -> None:
    assert health_report({"journal": "ok", "memory": state})["status"] == status


def test_health_is_503_when_the_journal_fails(tmp_path: Path) -> None:
    runner, _ = orchestrator(tmp_path)
    down = lambda: health_report({"journal": "failing: OperationalError", "memory": "ok"})  # noqa: E731
    http = TestClient(build_api(runner, TOKEN, "127.0.0.1", down), base_url=BASE)
    answer = http.get("/health")
    assert (answer.status_code, answer.json()["status"]) == (503, "down")


@pytest.mark.parametrize("host", ["evil.example", "attacker.test:8765", "192.168.1.5"])
def test_a_foreign_host_header_is_refused(served: tuple[TestClient, Journal], host: str) -> None:
    http, _ = served
    assert http.get("/health", headers={"host": host}).status_code == 400
    assert http.get("/v1/models", headers={**AUTH, "host": host}).status_code == 400


@pytest.mark.parametrize("host", ["localhost:8765", "127.0.0.1:8765", "[::1]:8765"])
def test_loopback_host_headers_are_answered(served: tuple[TestClient, Journal], host: str) -> None:
    http, _ = served
    assert http.get("/v1/models", headers={**AUTH, "host": host}).status_code == 200


def test_bad_json_is_400_with_an_openai_error(served: tuple[TestClient, Journal]) -> None:
    http, journal = served
    answer = http.post("/v1/chat/completions", headers=AUTH, content=b'{"messages": [')
    assert answer.status_code == 400
    assert answer.json()["error"]["type"] == "invalid_request_error"
    assert answer.json()["error"]["code"] == "invalid_json"
    invalid = http.post(
        "/v1/chat/completions", headers=AUTH, json={"messages": [{"role": "system", "content": "x"}]}
    )
    assert (invalid.status_code, invalid.json()["error"]["param"]) == (400, "messages")
    assert journal.turns() == []


def test_a_body_over_the_limit_is_413(tmp_path: Path) -> None:
    runner, journal = orchestrator(tmp_path)
    http = TestClient(build_api(runner, TOKEN, "127.0.0.1", healthy, max_body=1000), base_url=BASE)
    big = {"messages": [{"role": "user", "content": "x" * 2000}]}
    answer = http.post("/v1/chat/completions", headers=AUTH, json=big)
    assert answer.status_code == 413
    assert answer.json()["error"]["code"] == "request_too_large"

    def chunked() -> Any:  # no Content-Length: the limit still holds while reading
        yield json.dumps(big).encode()

    assert http.post("/v1/chat/completions", headers=AUTH, content=chunked()).status_code == 413
    assert journal.turns() == []


def test_unknown_routes_and_methods_get_openai_errors(served: tuple[TestClient, Journal]) -> None:
    http, _ = served
    missing = http.get("/v1/embeddings", headers=AUTH)
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")
    wrong = http.get("/v1/chat/completions", headers=AUTH)
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (405, "method_not_allowed")


# --- a client that goes away -------------------------------------------------------------------------


def hanging(started: asyncio.Event) -> Script:
    """An agent that says a word, then waits for ever (a slow model)."""

    async def script(messages: list[Message]) -> AsyncIterator[RunEvent]:
        yield TextDelta("partial ")
        started.set()
        await asyncio.Event().wait()
        yield Done(answer="never")  # pragma: no cover

    return script


def http_scope(body: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    headers = [
        (b"host", b"127.0.0.1:8765"),
        (b"content-type", b"application/json"),
        (b"authorization", AUTH["authorization"].encode()),
    ]
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/chat/completions",
        "raw_path": b"/v1/chat/completions",
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8765),
    }
    return scope, json.dumps(body).encode()


@pytest.mark.parametrize("stream", [True, False])
async def test_a_client_that_goes_away_cancels_the_turn(tmp_path: Path, stream: bool) -> None:
    started = asyncio.Event()
    runner, journal = orchestrator(tmp_path, hanging(started))
    app = build_api(runner, TOKEN, "127.0.0.1", healthy)
    scope, body = http_scope(
        {"stream": stream, "messages": [{"role": "user", "content": "tell me a long story"}]}
    )
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop(0)
        await started.wait()  # the client leaves once the turn is under way
        return {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await asyncio.wait_for(app(scope, receive, send), timeout=30)  # returns: the turn did not hang on
    [turn] = journal.turns()
    assert (turn.user, turn.status) == ("tell me a long story", "cancelled")
    assert turn.assistant == "partial "


class BrokenRunner:
    """A runner whose turns raise before any event: a Daemon error, or a bug."""

    model_names = ["scripted"]

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def run_turn(self, text: str, **kw: Any) -> AsyncIterator[RunEvent]:
        raise self.error
        yield  # pragma: no cover - makes this an async generator


@pytest.mark.parametrize(
    ("error", "status", "kind"),
    [
        (StorageError("the journal is read-only"), 500, "server_error"),
        (UserInputError("the message is empty"), 400, "invalid_request_error"),
        (RuntimeError("a bug"), 500, "server_error"),
    ],
)
def test_a_turn_that_cannot_start_is_an_openai_error(error: Exception, status: int, kind: str) -> None:
    app = build_api(BrokenRunner(error), TOKEN, "127.0.0.1", healthy)
    http = TestClient(app, base_url=BASE, raise_server_exceptions=False)
    answer = http.post(
        "/v1/chat/completions", headers=AUTH, json={"messages": [{"role": "user", "content": "x"}]}
    )
    assert answer.status_code == status
    assert answer.json()["error"]["type"] == kind
    streamed = http.post(
        "/v1/chat/completions",
        headers=AUTH,
        json={"stream": True, "messages": [{"role": "user", "content": "x"}]},
    )
    events = [line for line in streamed.text.split("\n\n") if line]
    assert events[-1] == "data: [DONE]"
    assert json.loads(events[-2].removeprefix("data: "))["error"]["type"] == "server_error"
