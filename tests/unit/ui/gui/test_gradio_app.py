"""The chat page without a browser: the controller against a real Orchestrator + Journal, bind checks, and
the served app's Host allowlist."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Callable, MutableMapping
from pathlib import Path
from typing import Any

import pytest

from core.errors import ConfigError
from core.events import Done, RunError, RunEvent, TextDelta, ToolCallEnded, ToolCallStarted
from core.orchestrator import ModelChoice, Orchestrator
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import ContextGatherer, JournalHistory
from core.types import Message, ToolCall, Usage
from memory.journal import Journal
from ui.gui.chat_controller import BUSY, STOPPING, ChatController, ChatSession, ChatUpdate, normalize_history
from ui.shared import security

Script = Callable[[list[Message], asyncio.Event | None], AsyncIterator[RunEvent]]


class ScriptedAgent:
    """An agent whose run is a test-supplied async generator; records the messages it was given."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.seen: list[list[Message]] = []

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        self.seen.append(messages)
        async for event in self.script(messages, cancel):
            yield event


async def echo(messages: list[Message], cancel: asyncio.Event | None) -> AsyncIterator[RunEvent]:
    answer = f"Echo: {messages[-1].content.rsplit('The user says: ', 1)[-1]}"
    for word in answer.split(" "):
        yield TextDelta(word + " ")
    yield Done(answer=answer, usage=Usage(10, 4), model="scripted")


def make(tmp_path: Path, script: Script = echo, **kw: Any) -> tuple[ChatController, Journal, ScriptedAgent]:
    agent = ScriptedAgent(script)
    journal = Journal(tmp_path / "j.db")
    orchestrator = Orchestrator(
        models=[ModelChoice("scripted", agent)],
        log=journal,
        context=ContextGatherer(JournalHistory(journal, 8)),
        prompt=PromptBuilder("You are a test.", EstimateCounter(), 8000),
    )
    return ChatController(orchestrator, min_interval_s=0, **kw), journal, agent


async def drive(
    controller: ChatController, text: str | None, session: ChatSession, history: list[Any] | None = None
) -> list[ChatUpdate]:
    return [update async for update in controller.submit(text, history or [], session, "scripted")]


def texts(messages: list[dict[str, Any]] | None) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in messages or [] if "metadata" not in m]


async def test_streaming_accumulates_and_the_turn_is_committed(tmp_path: Path) -> None:
    controller, journal, _ = make(tmp_path)
    session = ChatSession()
    updates = await drive(controller, "hello there", session)
    assert updates[0].textbox == "" and texts(updates[0].messages) == [("user", "hello there")]
    streamed = [texts(u.messages)[-1][1] for u in updates[1:-1]]
    assert streamed == ["Echo: ", "Echo: hello ", "Echo: hello there "]
    assert texts(updates[-1].messages) == [("user", "hello there"), ("assistant", "Echo: hello there")]
    assert "scripted" in (updates[-1].status or "") and "10 in / 4 out" in (updates[-1].status or "")
    [turn] = journal.turns()
    assert (turn.session_id, turn.user, turn.assistant, turn.status) == (
        session.session_id,
        "hello there",
        "Echo: hello there",
        "complete",
    )
    assert session.cancel is None


async def test_second_message_continues_the_session_with_gradio6_history(tmp_path: Path) -> None:
    controller, journal, agent = make(tmp_path)
    session = ChatSession()
    first = await drive(controller, "one", session)
    # What Gradio 6 hands back to the handler: content as a list of parts.
    history = [
        {"role": m["role"], "content": [{"type": "text", "text": m["content"]}], "metadata": None}
        for m in first[-1].messages or []
    ]
    second = await drive(controller, "two", session, history)
    assert texts(second[-1].messages) == [
        ("user", "one"),
        ("assistant", "Echo: one"),
        ("user", "two"),
        ("assistant", "Echo: two"),
    ]
    system, user = (m.content for m in agent.seen[-1])
    assert "### RECENT CONVERSATION\nUser: one\nAssistant: Echo: one" in system
    assert user == "two"
    assert {t.session_id for t in journal.turns()} == {session.session_id}


async def test_empty_message_does_nothing(tmp_path: Path) -> None:
    controller, journal, agent = make(tmp_path)
    session = ChatSession()
    assert await drive(controller, "   \n", session) == []
    assert await drive(controller, None, session) == []
    assert journal.turns() == [] and agent.seen == [] and session.session_id is None


async def test_run_error_shows_in_status_and_keeps_the_text(tmp_path: Path) -> None:
    async def failing(messages: list[Message], cancel: asyncio.Event | None) -> AsyncIterator[RunEvent]:
        yield TextDelta("half an ans")
        yield RunError("the provider is down (HTTP 503)", kind="ProviderError")

    controller, journal, _ = make(tmp_path, failing)
    earlier = [{"role": "user", "content": "before"}, {"role": "assistant", "content": "ok"}]
    last = (await drive(controller, "please answer", ChatSession(), earlier))[-1]
    assert last.status == "⚠ the provider is down (HTTP 503)"
    assert last.textbox == "please answer"
    assert texts(last.messages) == [("user", "before"), ("assistant", "ok")]
    assert [t.status for t in journal.turns()] == ["failed"]


async def test_unexpected_exception_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    async def broken(messages: list[Message], cancel: asyncio.Event | None) -> AsyncIterator[RunEvent]:
        yield TextDelta("x")
        raise ValueError("boom")

    controller, journal, _ = make(tmp_path, broken)
    last = (await drive(controller, "hi", ChatSession()))[-1]
    assert last.status == "⚠ internal error; see the log for details" and last.textbox == "hi"
    assert "boom" not in (last.status or "")
    [turn] = journal.turns()
    assert turn.user == "hi" and turn.status == "failed"  # the user's text is kept


async def test_unknown_model_is_a_status_message_not_a_crash(tmp_path: Path) -> None:
    controller, _, _ = make(tmp_path)
    updates = [u async for u in controller.submit("hi", [], ChatSession(), "no-such-model")]
    assert "unknown model" in (updates[-1].status or "") and updates[-1].textbox == "hi"


async def test_tool_calls_are_compact_lines(tmp_path: Path) -> None:
    async def with_tool(messages: list[Message], cancel: asyncio.Event | None) -> AsyncIterator[RunEvent]:
        call = ToolCall("t1", "search", {"query": "weather"})
        yield ToolCallStarted(call)
        yield ToolCallEnded(call, ok=True, output="sunny, 21 C", elapsed_ms=15)
        yield TextDelta("It is sunny.")
        yield Done(answer="It is sunny.", citations=({"title": "Weather", "url": "https://w.example"},))

    controller, _, _ = make(tmp_path, with_tool)
    updates = await drive(controller, "weather?", ChatSession())
    shown = [m for u in updates for m in u.messages or []]
    pending = next(m for m in shown if m.get("metadata", {}).get("status") == "pending")
    assert pending["metadata"]["title"] == "tool: search(query='weather')"
    final = updates[-1].messages or []
    tool = final[1]
    assert tool["metadata"]["status"] == "done" and tool["content"] == "ok · 15 ms · sunny, 21 C"
    assert final[2]["content"] == "It is sunny."
    assert "[1] Weather — https://w.example" in final[3]["content"]


async def test_stop_sets_the_cancel_event_and_the_turn_ends_cancelled(tmp_path: Path) -> None:
    async def until_cancelled(messages: list[Message], cancel: asyncio.Event | None) -> AsyncIterator[Any]:
        assert cancel is not None
        yield TextDelta("partial")
        await asyncio.wait_for(cancel.wait(), 5)
        await asyncio.sleep(0.2)  # winding down takes a moment
        yield Done(answer="partial", exit_reason="cancelled")

    controller, journal, _ = make(tmp_path, until_cancelled)
    session = ChatSession()
    updates = []
    async for update in controller.submit("long task", [], session, "scripted"):
        updates.append(update)
        if texts(update.messages)[-1] == ("assistant", "partial"):
            event = session.cancel
            assert controller.stop(session) is True
            assert event is not None and event.is_set()
    statuses = [update.status for update in updates if update.status]
    assert STOPPING in statuses  # the stream itself says so, before its final status
    assert statuses[-1].startswith("Stopped. · ")
    assert texts(updates[-1].messages)[-1] == ("assistant", "partial")
    assert [(t.status, t.assistant) for t in journal.turns()] == [("cancelled", "partial")]
    assert controller.stop(session) is False  # nothing running any more


async def test_a_run_that_ignores_stop_is_dropped_after_the_grace_period(tmp_path: Path) -> None:
    async def stubborn(messages: list[Message], cancel: asyncio.Event | None) -> AsyncIterator[RunEvent]:
        yield TextDelta("working")
        await asyncio.sleep(30)
        yield Done(answer="late")

    controller, journal, _ = make(tmp_path, stubborn, stop_grace_s=0.2)
    session = ChatSession()
    updates = []
    async for update in controller.submit("go", [], session, "scripted"):
        updates.append(update)
        if len(updates) == 2:
            controller.stop(session)
    assert updates[-1].status == "Stopped."
    assert [t.status for t in journal.turns()] == ["cancelled"]


async def test_busy_session_refuses_a_second_turn(tmp_path: Path) -> None:
    controller, _, _ = make(tmp_path)
    session = ChatSession(cancel=asyncio.Event())
    assert await drive(controller, "hi", session) == [ChatUpdate(status=BUSY)]


async def test_new_chat_drops_the_running_view(tmp_path: Path) -> None:
    async def until_cancelled(messages: list[Message], cancel: asyncio.Event | None) -> AsyncIterator[Any]:
        assert cancel is not None
        yield TextDelta("partial")
        await cancel.wait()
        yield Done(answer="partial", exit_reason="cancelled")

    controller, journal, _ = make(tmp_path, until_cancelled)
    session = ChatSession()
    updates = []
    async for update in controller.submit("one", [], session, "scripted"):
        updates.append(update)
        if len(updates) == 2:
            assert controller.new_chat(session) == ChatUpdate([], None, "")
    assert len(updates) == 2  # nothing drawn over the cleared chat
    assert session.session_id is None and session.cancel is None
    assert [t.status for t in journal.turns()] == ["cancelled"]


async def test_new_chat_starts_a_new_session(tmp_path: Path) -> None:
    controller, journal, agent = make(tmp_path)
    session = ChatSession()
    await drive(controller, "one", session)
    first = session.session_id
    controller.new_chat(session)
    await drive(controller, "two", session)
    assert first and session.session_id and first != session.session_id
    system, user = (m.content for m in agent.seen[-1])
    assert "RECENT CONVERSATION" not in system and user == "two"
    assert len({t.session_id for t in journal.turns()}) == 2


def test_normalize_history_reads_content_parts() -> None:
    history = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}], "metadata": None, "options": None},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "metadata": {"title": "🔧 t()", "status": "done", "log": None},
        },
        {"role": "assistant", "content": "plain"},
        "junk",
    ]
    assert normalize_history(history) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "a\nb", "metadata": {"title": "🔧 t()", "status": "done"}},
        {"role": "assistant", "content": "plain"},
    ]


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.1", "localhost", "LOCALHOST", "::1", "[::1]"])
def test_loopback_hosts(host: str) -> None:
    assert security.is_loopback(host)
    security.check_bind(host, None)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "example.com", ""])
def test_non_loopback_bind_needs_auth(host: str) -> None:
    assert not security.is_loopback(host)
    with pytest.raises(ConfigError, match="DAEMON_GUI_AUTH"):
        security.check_bind(host, None)
    security.check_bind(host, ("me", "s3cret"))


def test_auth_parsing_never_echoes_the_secret() -> None:
    assert security.parse_auth("me:pa:ss") == ("me", "pa:ss")
    assert security.parse_auth("") is None and security.parse_auth(None) is None
    for bad in ("nocolon-s3cretvalue", ":s3cretvalue", "me:"):
        with pytest.raises(ConfigError) as info:
            security.parse_auth(bad)
        assert "s3cretvalue" not in str(info.value)
    with pytest.raises(ConfigError):
        security.check_bind("0.0.0.0", ("me", ""))


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("127.0.0.1:7860", "127.0.0.1"),
        ("[::1]:7860", "::1"),
        ("LocalHost", "localhost"),
        ("evil.test:80", "evil.test"),
    ],
)
def test_host_header_parsing(header: str, name: str) -> None:
    assert security.host_name(header) == name


def test_lan_bind_does_not_restrict_host_names() -> None:
    assert security.allowed_hosts_for("0.0.0.0") is None
    assert "localhost" in (security.allowed_hosts_for("127.0.0.1") or ())


async def test_host_allowlist_middleware() -> None:
    calls: list[str] = []

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        calls.append(scope["type"])

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> MutableMapping[str, Any]:
        raise AssertionError("the allowlist never reads a request body")

    middleware = security.HostAllowlist(inner, allowed=["127.0.0.1"])
    await middleware({"type": "http", "headers": [(b"host", b"127.0.0.1:7860")]}, receive, send)
    await middleware({"type": "http", "headers": [(b"host", b"rebind.evil:7860")]}, receive, send)
    await middleware({"type": "websocket", "headers": []}, receive, send)
    await middleware({"type": "lifespan"}, receive, send)
    assert calls == ["http", "lifespan"]
    assert sent[0]["status"] == 400 and sent[-1] == {"type": "websocket.close", "code": 1008}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_served_app_refuses_foreign_host_headers(tmp_path: Path) -> None:
    import httpx

    from ui.gui.app import build_app, launch

    controller, _, _ = make(tmp_path)
    app = build_app(controller.backend, title="Daemon test", model_notice="Tiny offline model.")
    ids = {block.elem_id for block in app.blocks.values()}
    assert {"chatbot", "msg", "send", "stop", "new", "model", "status", "notice"} <= ids
    with pytest.raises(ConfigError, match="DAEMON_GUI_AUTH"):
        launch(app, "0.0.0.0", _free_port(), None, block=False)
    url = launch(app, "127.0.0.1", _free_port(), None, block=False, quiet=True, blocked_paths=[tmp_path])
    try:
        assert httpx.get(url, timeout=10).status_code == 200
        assert httpx.get(url, headers={"Host": "rebind.evil"}, timeout=10).status_code == 400
        # A page elsewhere (or a sandboxed one, Origin "null") gets no CORS grant to read or drive it.
        for origin in ("http://evil.example", "null"):
            page = httpx.get(url, headers={"Origin": origin}, timeout=10)
            assert page.headers.get("access-control-allow-origin") in (None, ""), origin
            preflight = httpx.options(
                url.rstrip("/") + "/gradio_api/queue/join",
                headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
                timeout=10,
            )
            assert preflight.headers.get("access-control-allow-origin") in (None, ""), origin
        own = httpx.options(  # the page's own origin is granted: the check above can tell the difference
            url.rstrip("/") + "/gradio_api/queue/join",
            headers={"Origin": url.rstrip("/"), "Access-Control-Request-Method": "POST"},
            timeout=10,
        )
        assert own.headers.get("access-control-allow-origin") == url.rstrip("/")
    finally:
        app.close()


def test_without_a_login_nothing_answers_and_repeated_wrong_passwords_lock_the_login(tmp_path: Path) -> None:
    import httpx

    from ui.gui.app import build_app, launch

    controller, _, _ = make(tmp_path)
    app = build_app(controller.backend, title="Daemon test", model_notice="Tiny offline model.")
    url = launch(app, "127.0.0.1", _free_port(), ("me", "right horse"), block=False, quiet=True)
    login = url.rstrip("/") + "/login"
    try:
        base = url.rstrip("/")  # without the login cookie no route does anything
        assert (
            httpx.post(f"{base}/gradio_api/upload", files={"files": ("a.txt", b"x")}, timeout=10).status_code
            == 401
        )
        join = {"fn_index": 0, "data": [], "session_hash": "x"}
        assert httpx.post(f"{base}/gradio_api/queue/join", json=join, timeout=10).status_code == 401
        for path in ("/config", "/gradio_api/info", "/gradio_api/queue/data?session_hash=x"):
            assert httpx.get(base + path, timeout=10).status_code == 401, path
        right = {"username": "me", "password": "right horse"}
        assert httpx.post(login, data=right, timeout=10).status_code == 200  # the login works
        for guess in ("password", "123456", "letmein", "daemon", "qwerty"):
            wrong = httpx.post(login, data={"username": "me", "password": guess}, timeout=10)
            assert wrong.status_code == 400
        refused = httpx.post(login, data=right, timeout=10)
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) == 30
    finally:
        app.close()


async def test_a_lone_surrogate_from_the_browser_is_repaired_and_answered(tmp_path: Path) -> None:
    controller, journal, _ = make(tmp_path)
    last = (await drive(controller, "bad \ud800 end", ChatSession()))[-1]
    assert last.status and not last.status.startswith("⚠")
    assert [(t.user, t.status) for t in journal.turns()] == [("bad \ufffd end", "complete")]


async def test_a_message_of_only_invisible_characters_is_not_sent(tmp_path: Path) -> None:
    controller, journal, agent = make(tmp_path)
    assert await drive(controller, "\u200b\u200d\ufeff \u2060", ChatSession()) == []
    assert journal.turns() == [] and agent.seen == []


def test_the_file_route_serves_nothing_of_the_data_folder_or_the_system(tmp_path: Path) -> None:
    """Gradio's `/gradio_api/file=` route is how peers' GUIs leaked files: no path, however spelled,
    reaches the data folder, the system or the project."""
    import httpx

    from ui.gui.app import build_app, launch, upload_folder

    data = tmp_path / "data"
    data.mkdir()
    secret = data / "journal.sqlite3"
    secret.write_text("CANARY-JOURNAL")
    controller, _, _ = make(tmp_path)
    app = build_app(controller.backend, title="Daemon test", model_notice="Tiny offline model.")
    url = launch(app, "127.0.0.1", _free_port(), None, block=False, quiet=True, blocked_paths=[data])
    base = url.rstrip("/")
    try:
        tries = [
            str(secret),
            f"{data}/../data/journal.sqlite3",
            str(secret).replace("/", "%2F"),
            "/etc/passwd",
            "../../../../etc/passwd",
            "..%2F..%2F..%2F..%2Fetc%2Fpasswd",
            str(Path(__file__).resolve()),
        ]
        for path in tries:
            for route in ("/gradio_api/file=", "/file="):
                answer = httpx.get(base + route + path, timeout=10)
                assert answer.status_code in (403, 404), (route, path, answer.status_code)
                assert b"CANARY-JOURNAL" not in answer.content and b"root:" not in answer.content
        # the route does serve what it is for (an upload of this page), so the refusals above are refusals
        upload_folder().mkdir(parents=True, exist_ok=True)
        uploaded = upload_folder() / f"upload-{_free_port()}.txt"
        uploaded.write_text("AN UPLOAD")
        try:
            served = httpx.get(base + "/gradio_api/file=" + str(uploaded), timeout=10)
            assert served.status_code == 200 and served.content == b"AN UPLOAD"
        finally:
            uploaded.unlink()
    finally:
        app.close()


def test_an_uploaded_html_or_svg_file_is_served_as_a_download_never_as_a_page(tmp_path: Path) -> None:
    """A page or an SVG served inline from the GUI's own origin would run its scripts there (stored XSS
    through an upload, as peers shipped): it must come back as an attachment of no renderable type."""
    import httpx

    from ui.gui.app import build_app, launch, upload_folder

    controller, _, _ = make(tmp_path)
    app = build_app(controller.backend, title="Daemon test", model_notice="Tiny offline model.")
    url = launch(app, "127.0.0.1", _free_port(), None, block=False, quiet=True, blocked_paths=[tmp_path])
    upload_folder().mkdir(parents=True, exist_ok=True)
    script = "<script>document.title='owned'</script>"
    files = {
        "page.html": f"<html><body>{script}</body></html>",
        "page.htm": script,
        "logo.svg": f'<svg xmlns="http://www.w3.org/2000/svg">{script}</svg>',
        "page.xhtml": f'<html xmlns="http://www.w3.org/1999/xhtml">{script}</html>',
    }
    made = []
    try:
        for name, body in files.items():
            upload = upload_folder() / f"{_free_port()}-{name}"
            upload.write_text(body)
            made.append(upload)
            served = httpx.get(url.rstrip("/") + "/gradio_api/file=" + str(upload), timeout=10)
            assert served.status_code == 200, name
            kind = served.headers.get("content-type", "")
            assert "html" not in kind and "svg" not in kind and "xml" not in kind, (name, kind)
            assert served.headers.get("content-disposition", "").startswith("attachment"), name
    finally:
        for upload in made:
            upload.unlink(missing_ok=True)
        app.close()
