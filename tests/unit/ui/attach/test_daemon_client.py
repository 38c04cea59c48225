"""The attached front ends against real control routes: uvicorn on 127.0.0.1 in a thread, over a real
orchestrator and journal (a scripted agent instead of a model) and small fake stores.

What the CLI prints through the running Daemon is what it prints over the same objects held here; a stale
or foreign endpoint is ignored; a wrong token, bad input, a server gone mid-request and a stopped turn each
end in the error or the outcome the user should see."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from core.errors import UserInputError
from core.events import Done, RunEvent, TextDelta, ToolCallEnded, ToolCallStarted
from core.orchestrator import ModelChoice, Orchestrator
from core.ports import FactView
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import ContextGatherer, JournalHistory
from core.types import Message, ToolCall, Usage
from memory.candidates import QueryContext, ScoredMemory
from memory.journal import Journal
from ui.attach.client import (
    DaemonClient,
    DaemonUnavailable,
    RemoteConversation,
    RemoteFacts,
    RemoteMemory,
    attach,
)
from ui.attach.control_routes import ControlBackend, control_mount
from ui.attach.endpoint import TOKEN_FILE, ControlFiles, Endpoint
from ui.shared.payloads import ask_payload
from ui.terminal import chat as cli
from ui.terminal.facts import list_facts
from ui.terminal.memory import memory_search, memory_stats

CALL = ToolCall("c1", "current_time", {})


class ScriptedAgent:
    """Echoes the last line of the prompt word by word, with one tool call; "hang" waits until cancelled."""

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        words = messages[-1].content.rsplit("\n", 1)[-1].split(" ")
        yield ToolCallStarted(CALL)
        yield ToolCallEnded(CALL, True, "12:00", 3.0)
        for word in words:
            yield TextDelta(word + " ")
            if word == "hang":
                await asyncio.sleep(3600)
        yield Done(answer=" ".join(words) + " ", usage=Usage(10, len(words), 0.00012345), model="scripted")


@dataclass
class Recording:
    """The orchestrator, noting every event it hands the control routes."""

    inner: Orchestrator
    events: list[RunEvent] = field(default_factory=list)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @property
    def model_names(self) -> list[str]:
        return self.inner.model_names

    async def run_turn(self, text: str, **kwargs: Any) -> AsyncIterator[RunEvent]:
        async for event in self.inner.run_turn(text, **kwargs):
            self.events.append(event)
            yield event


MEMORIES = [  # scores whose rounding differs between 3 and 4 decimals: the client must get them exact
    ScoredMemory("m1", "facts", "The user lives in Lyon.", {"created_at": 1.5}, 0.12351, {"dense": 0.98765}),
    ScoredMemory("m2", "conversations", "User: hi\nAssistant: hello", {}, 0.0995, {"lexical": 0.5}),
]
FACTS = [
    FactView("f1", "user", "lives_in", "Paris", "superseded", 0.8, "place", "t1", "f2", "moved"),
    FactView("f2", "user", "lives_in", "Lyon", "current", 0.9, "place", "t2"),
]


class FakeMemory:
    def __init__(self) -> None:
        self.asked: list[tuple[QueryContext, Sequence[str] | None, int]] = []

    async def search(
        self, ctx: QueryContext, *, collections: Sequence[str] | None = None, k: int = 10
    ) -> list[ScoredMemory]:
        self.asked.append((ctx, collections, k))
        return MEMORIES[:k]

    def stats(self) -> dict[str, int]:
        return {"facts": 1, "conversations": 1}


class FakeFacts:
    def list_facts(self, status: str | None = None) -> list[FactView]:
        return [f for f in FACTS if status in (None, f.status)]


@dataclass
class Running:
    data_dir: Path
    conversation: Recording
    memory: FakeMemory
    files: ControlFiles
    server: Any
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def _serve(app: Any) -> tuple[Any, threading.Thread, int]:
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(600):
        if server.started:
            return server, thread, port
        time.sleep(0.05)
    raise AssertionError("the control server did not start")


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    from starlette.applications import Starlette

    journal = Journal(tmp_path / "journal.sqlite3")
    agent = ScriptedAgent()
    orchestrator = Orchestrator(
        models=[ModelChoice("scripted", agent), ModelChoice("other", agent)],
        log=journal,
        context=ContextGatherer(JournalHistory(journal, 8)),
        prompt=PromptBuilder("You are a test.", EstimateCounter(), 8000),
    )
    conversation, memory = Recording(orchestrator), FakeMemory()
    files = ControlFiles(tmp_path)
    backend = ControlBackend(conversation, memory, FakeFacts(), "api", "0.1.0")
    server, thread, port = _serve(Starlette(routes=[control_mount(backend, files.token)]))
    files.announce(port, "api")
    up = Running(tmp_path, conversation, memory, files, server, thread)
    yield up
    up.stop()
    journal.close()


def attached(running: Running) -> DaemonClient:
    client = attach(running.data_dir)
    assert client is not None
    return client


def output(capsys: pytest.CaptureFixture[str], run: Any) -> tuple[int, str, str]:
    code = run()
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_attach_finds_the_running_daemon(running: Running) -> None:
    client = attached(running)
    assert client.endpoint.pid == os.getpid() and client.endpoint.kind == "api"
    assert "pid" in client.describe() and str(client.endpoint.port) in client.describe()


def test_a_turn_arrives_as_the_events_the_daemon_produced(running: Running) -> None:
    remote = RemoteConversation(attached(running))

    async def collect() -> list[RunEvent]:
        return [e async for e in remote.run_turn("hello over there", model="other")]

    received = asyncio.run(collect())
    assert received == running.conversation.events
    assert isinstance(received[-1], Done) and received[-1].answer.strip() == "hello over there"


def test_ask_json_prints_the_payload_of_the_daemons_turn(
    running: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = RemoteConversation(attached(running))
    code, out, _ = output(capsys, lambda: cli.ask(remote, "one two", session_id=None, as_json=True))
    done = running.conversation.events[-1]
    assert code == 0 and isinstance(done, Done)
    assert json.loads(out) == json.loads(json.dumps(ask_payload(done)))
    assert (
        json.loads(out)["turn_id"] == running.conversation.inner.history(None, 1)[0].turn_id
    )  # journaled there


def test_ask_text_streams_the_answer_and_the_tool_lines(
    running: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    remote = RemoteConversation(attached(running))
    code, out, err = output(capsys, lambda: cli.ask(remote, "streamed words", session_id=None, as_json=False))
    assert code == 0 and out == "streamed words \n"
    assert "[tool] current_time" in err and "ok (3 ms)" in err


@pytest.mark.parametrize("as_json", [False, True])
def test_history_prints_the_same_through_the_daemon(
    running: Running, capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    remote = RemoteConversation(attached(running))
    session = remote.new_session()
    asyncio.run(cli.run_turn(remote, "first turn", lambda e: None, session_id=session))
    asyncio.run(cli.run_turn(remote, "second turn", lambda e: None, session_id=session))
    capsys.readouterr()
    local = running.conversation.inner
    through = output(capsys, lambda: cli.history(remote, session_id=session, as_json=as_json, limit=None))
    here = output(capsys, lambda: cli.history(local, session_id=session, as_json=as_json, limit=None))
    assert through == here and "second turn" in through[1]
    limited = output(capsys, lambda: cli.history(remote, session_id=None, as_json=as_json, limit=1))
    assert "second turn" in limited[1] and "first turn" not in limited[1]


@pytest.mark.parametrize("as_json", [False, True])
@pytest.mark.parametrize("status", [None, "current", "superseded"])
def test_facts_print_the_same_through_the_daemon(
    running: Running, capsys: pytest.CaptureFixture[str], as_json: bool, status: str | None
) -> None:
    remote = RemoteFacts(attached(running))
    through = output(capsys, lambda: list_facts(remote, status=status, as_json=as_json))
    here = output(capsys, lambda: list_facts(FakeFacts(), status=status, as_json=as_json))
    assert through == here
    assert ("Paris" if status == "superseded" else "Lyon") in through[1]


@pytest.mark.parametrize("as_json", [False, True])
def test_memory_prints_the_same_through_the_daemon(
    running: Running, capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    remote = RemoteMemory(attached(running))

    def search(memory: Any) -> int:
        return memory_search(
            memory, "Lyon", collection="facts", k=2, intent="factual_recall", as_json=as_json
        )

    through, here = output(capsys, lambda: search(remote)), output(capsys, lambda: search(FakeMemory()))
    # 0.12351 shows as 0.124 from the exact score (0.1235, rounded on the way, would show 0.123)
    assert through == here and ("0.124" in through[1] or as_json)
    ctx, collections, k = running.memory.asked[0]
    assert (ctx.query, ctx.intent, collections, k) == ("Lyon", "factual_recall", ["facts"], 2)
    stats = output(capsys, lambda: memory_stats(remote, as_json=as_json))
    assert stats == output(capsys, lambda: memory_stats(FakeMemory(), as_json=as_json))


def test_the_repl_talks_to_the_daemon(running: Running, capsys: pytest.CaptureFixture[str]) -> None:
    remote = RemoteConversation(attached(running))
    lines = iter(["hi from the repl", "/model other", "/history", "/quit"])
    repl = cli.Repl(remote, banner="attached")
    assert repl.run(read=lambda _prompt: next(lines)) == 0
    out = capsys.readouterr().out
    assert "hi from the repl" in out and "now using other" in out
    assert [t.user for t in running.conversation.inner.history(repl.session_id)] == ["hi from the repl"]


def test_bad_input_is_the_users_error_as_it_is_locally(running: Running) -> None:
    client = attached(running)
    with pytest.raises(UserInputError, match="unknown model"):
        client.post("turn", {"text": "hi", "model": "nope"})
    with pytest.raises(UserInputError, match="unknown intent"):
        client.post("memory/search", {"query": "x", "now": 1.0, "intent": "bogus"})
    with pytest.raises(UserInputError, match="non-empty string"):
        client.post("turn", {"text": "  "})


def test_a_wrong_token_is_refused(running: Running) -> None:
    client = attached(running)
    wrong = DaemonClient(client.endpoint, "not-the-token-0123456789")
    with pytest.raises(DaemonUnavailable, match="refused the token") as refused:
        wrong.get("facts")
    assert "nothing ran here" in str(refused.value)
    (running.data_dir / TOKEN_FILE).write_text("not-the-token-0123456789\n")
    assert attach(running.data_dir) is None  # /health does not answer with that token: not attached


def test_a_daemon_gone_mid_request_is_said_plainly(running: Running) -> None:
    client = attached(running)
    running.stop()
    with pytest.raises(DaemonUnavailable, match="stopped answering") as lost:
        RemoteFacts(client).list_facts()
    assert "nothing ran here" in str(lost.value)
    assert attach(running.data_dir) is None  # the next command runs on its own


def test_a_stale_endpoint_is_ignored(tmp_path: Path) -> None:
    files = ControlFiles(tmp_path)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    files.announce(free, "gui")  # our own pid (alive), but no server
    assert attach(tmp_path, timeout_s=1.0) is None
    endpoint = json.loads((tmp_path / "daemon_endpoint.json").read_text())
    endpoint["pid"] = 2**22 + 12345  # beyond any pid this machine hands out: dead
    (tmp_path / "daemon_endpoint.json").write_text(json.dumps(endpoint))
    assert attach(tmp_path) is None


def test_another_process_answering_on_the_port_is_not_trusted(running: Running) -> None:
    client = attached(running)
    foreign = Endpoint(client.endpoint.port, client.endpoint.pid + 1, 0.0, "api")  # health says another pid
    (running.data_dir / "daemon_endpoint.json").write_text(json.dumps(foreign.__dict__))
    assert attach(running.data_dir) is None


def test_a_stopped_turn_ends_cancelled_and_the_daemon_journals_it(running: Running) -> None:
    remote = RemoteConversation(attached(running))
    cancel = asyncio.Event()

    async def stop_after_first_words() -> list[RunEvent]:
        seen: list[RunEvent] = []
        async for event in remote.run_turn("please hang forever", cancel=cancel):
            seen.append(event)
            if isinstance(event, TextDelta) and event.text == "hang ":
                cancel.set()
        return seen

    seen = asyncio.run(stop_after_first_words())
    last = seen[-1]
    assert isinstance(last, Done) and last.exit_reason == "cancelled"
    assert last.answer == "please hang "
    journal = running.conversation.inner
    for _ in range(200):  # the daemon notices the closed stream and journals the turn as cancelled
        turns = journal.history(None, 1)
        if turns and turns[0].status != "pending":
            break
        time.sleep(0.05)
    assert turns[0].user == "please hang forever" and turns[0].status == "cancelled"


def test_the_turn_route_answers_the_ask_json_object_when_not_streamed(running: Running) -> None:
    client = attached(running)
    answer = client.post("turn", {"text": "not streamed", "stream": False})
    done = running.conversation.events[-1]
    assert isinstance(done, Done) and answer == json.loads(json.dumps(ask_payload(done)))
    assert answer["answer"].strip() == "not streamed"


class SlowHealth:
    """An HTTP server on 127.0.0.1 whose `/daemon/v1/health` answers as this pid after `delay_s`."""

    def __init__(self, delay_s: float) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        delay = delay_s

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                time.sleep(delay)
                body = json.dumps({"ok": True, "pid": os.getpid()}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_busy_daemon_is_waited_for_not_taken_for_stale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    slow = SlowHealth(delay_s=1.0)
    try:
        ControlFiles(tmp_path).announce(slow.port, "gui")
        assert attach(tmp_path, timeout_s=0.2, busy_wait_s=0.3) is None  # still busy after the wait
        client = attach(tmp_path, timeout_s=0.2, busy_wait_s=30.0)
        assert client is not None and client.endpoint.port == slow.port
        assert "which is busy" in capsys.readouterr().err
    finally:
        slow.close()
