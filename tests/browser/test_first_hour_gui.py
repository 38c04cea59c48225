"""The first hour with no key, in the browser: the real `gui` process on the embedded defaults (no key, no
network). The wizard stands alone and is skipped; then a new user introduces themselves, asks about
themselves, a dog they never had and what Daemon remembers, adds a recipe in the Documents tab and asks
about it, asks the time and a sum, corrects where they live in the Memory tab and asks again. Each answer is
right, with its sources listed in words; no prompt markup or raw marker reaches the page.

A screenshot of each tab is taken on first run and after the conversation; with DAEMON_UPDATE_SCREENSHOTS=1
they replace docs/screenshots/first-run-*.png and after-chat-*.png.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.gui_page import Gui, send, served_gui, tab
from tests.integration.offline_cli import NEEDS_EMBEDDED_MODEL, offline_env

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.integration,
    NEEDS_EMBEDDED_MODEL,
]
TABS = (
    "Chat",
    "Memory",
    "Graph",
    "Documents",
    "Images",
    "Status",
    "Sessions",
    "Tasks",
    "Your data",
    "Settings",
)
RECIPE = "# Lemon drizzle cake\n\n- 225 g unsalted butter\n- 4 eggs\n- 225 g self-raising flour\n"
RAW_MARKER = re.compile(r"\[[A-Za-z]{1,2}\d{1,3}\]")


@pytest.fixture(scope="module")
def gui(tmp_path_factory: pytest.TempPathFactory, chromium_path: Path) -> Iterator[Gui]:
    folder = tmp_path_factory.mktemp("first-hour")
    env = offline_env(folder)
    env.pop("GRADIO_TEMP_DIR", None)  # `gui` puts it inside the data dir
    with served_gui([], env, folder, start_s=240) as url:
        yield Gui(url, None, folder / "data", tmp_path_factory.mktemp("shots"))


def _every_tab(page: Any, gui: Gui, prefix: str) -> None:
    for name in TABS:
        tab(page, name)
        page.wait_for_timeout(600)  # the tab reads its tables when opened
        gui.shot(page, f"{prefix}-{name.lower().replace(' ', '-')}")
    tab(page, "Chat")


def _ask(page: Any, text: str, expected: str) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#send")).to_be_enabled()
    send(page, text)
    expect(page.locator("#chatbot")).to_contain_text(text, timeout=30_000)  # taken: the turn has started
    expect(page.locator("#chatbot")).to_contain_text(re.compile(expected), timeout=120_000)
    # the turn is over once its status names how long it took: a message sent before is refused as busy
    expect(page.locator("#status")).to_contain_text(re.compile(r"\d s\b"), timeout=60_000)
    page.wait_for_timeout(300)  # the run frees the session just after its last update


def test_the_first_hour_in_the_browser_answers_from_evidence(gui: Gui, browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(gui.url)
        expect(page.locator("#wizard")).to_be_visible(timeout=60_000)
        expect(page.locator("#tabs")).to_be_hidden()  # the wizard stands alone
        gui.shot(page, "first-run-wizard")
        page.click("#wiz-skip")
        page.wait_for_selector("#msg textarea")
        expect(page.locator("#model input")).to_have_value("SmolLM2 135M, built in")
        expect(page.locator("#notice")).not_to_contain_text("DAEMON_PROVIDER")
        tab(page, "Memory")
        expect(page.locator("#facts-empty")).to_contain_text("No facts yet")  # an empty tab says what comes
        tab(page, "Chat")
        _every_tab(page, gui, "first-run")

        intro = (
            "Hi! I'm Maya Lindqvist. I work as a veterinary nurse, I live in Gothenburg, and I have a grey "
            "cat called Pepper."
        )
        _ask(page, intro, r"Nice to meet you, Maya!")
        _ask(page, "What's my name?", r"your name is Maya Lindqvist")
        expect(page.locator("#sources-box")).to_be_visible()
        expect(page.locator("#sources")).to_contain_text("You told me: your name is Maya Lindqvist")
        _ask(page, "What is my dog's name?", r"nothing you told me about your dog's name")
        _ask(page, "What do you remember about me?", r"Here's what you've told me")
        _ask(page, "What time is it now?", r"It's \d\d:\d\d on")
        _ask(page, "What is 17.5% of 2480?", r"17\.5% of 2480 = 434")

        recipe = tmp_path / "lemon-drizzle-cake.md"
        recipe.write_text(RECIPE, encoding="utf-8")
        tab(page, "Documents")
        page.set_input_files("#doc-upload input[type=file]", str(recipe))
        expect(page.locator("#doc-status")).to_contain_text("done", timeout=120_000)
        tab(page, "Chat")
        _ask(page, "How much flour does the lemon drizzle cake need?", r"225 g self-raising flour")
        expect(page.locator("#sources")).to_contain_text("lemon-drizzle-cake.md")

        tab(page, "Memory")  # the user corrects where they live: one truth afterwards
        page.locator("#facts").get_by_text("Gothenburg", exact=True).click()
        expect(page.locator("#fact-id input, #fact-id textarea").first).not_to_have_value("")
        page.fill("#fact-value input, #fact-value textarea", "Malmö")
        page.click("#fact-save")
        expect(page.locator("#fact-status")).to_contain_text("Gothenburg → Malmö")
        tab(page, "Chat")
        _ask(page, "Where do I live?", r"you live in Malmö")

        shown = page.locator("#chatbot").inner_text()
        assert not RAW_MARKER.search(shown), shown  # numbered sources, never "[F3]"
        assert "###" not in shown and "tool_call" not in shown and '{"tool"' not in shown, shown
        _every_tab(page, gui, "after-chat")
    finally:
        context.close()
