"""The first-run wizard and the Settings tab in a real browser (Debian chromium through Playwright).

A fresh data dir behind the whole GUI back end of tests/browser/gui_stack.py, a fake Ollama on a free
loopback port (its real `/api/tags` and `/v1/chat/completions` formats) as the only local server found: the
wizard shows, takes a name and a style, offers the Ollama model in one click, validates it with one real
request, saves the settings in the data dir and hides; the chat then answers with that model at once
(the composition root's model switcher, no restart). The Settings tab edits the personality. Screenshots go
where the other tabs' go (tests/browser/test_gui_tabs.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.config import load_config
from core.config_user import save_settings, settings_path
from core.secrets import SECRETS_FILE, SecretStore
from core.system_prompt import DEFAULT_PERSONALITY, PERSONALITY_FILE, system_prompt_reader
from tests.browser.gui_page import Gui, free_port, uploads_inside
from tests.browser.gui_stack import build_stack
from tests.fakes.model_listing_servers import OllamaListing, port_of
from tests.fakes.openai_dialect_servers import said
from ui.gui.wizard import SetupDesk

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TAVILY_KEY = "tvly-dev-wizard-0123456789abcdef"


@pytest.fixture(scope="module")
def ollama() -> Iterator[OllamaListing]:
    server = OllamaListing(("qwen2.5:7b",)).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def gui(
    tmp_path_factory: pytest.TempPathFactory, chromium_path: Path, ollama: OllamaListing
) -> Iterator[Gui]:
    from ui.gui.app import build_app, launch

    data = tmp_path_factory.mktemp("fresh-data")
    restore_uploads = uploads_inside(data)
    stack = build_stack(data)
    ports = {"ollama": port_of(ollama), "lmstudio": free_port(), "llamacpp": free_port()}
    stack.backends.setup = SetupDesk(
        data,
        SecretStore(data, keyring=lambda: None),
        ports,
        0.8,
        10.0,
        "scripted",
        use_model=_switcher(data, stack.orchestrator),
    )
    notice = "Answering with the scripted test model."
    app = build_app(stack.orchestrator, title="Daemon", model_notice=notice, backends=stack.backends)
    url = launch(app, "127.0.0.1", free_port(), None, block=False, quiet=True, blocked_paths=[data])
    try:
        yield Gui(url, stack, data, tmp_path_factory.mktemp("screenshots"))
    finally:
        app.close()
        stack.close()
        restore_uploads()


def _switcher(data: Path, orchestrator: Any) -> Any:
    """The composition root's own model switcher (start-up's composition of a main model) on the stack's
    orchestrator."""
    from core.agent.factory import AgentGuards
    from core.generation.main_model import ModelKit, model_switcher
    from core.providers.pricing import CostLedger
    from core.tools.toolset import Toolset

    config = load_config(overrides={"data_dir": str(data)})
    kit = ModelKit(Toolset(), (), None, None, AgentGuards())
    return model_switcher(config, {}, CostLedger(budget_usd=None), orchestrator, kit)


@pytest.fixture
def page(browser: Any, gui: Gui) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        yield page
    finally:
        context.close()


def test_first_run_wizard_completes(page: Any, gui: Gui, ollama: OllamaListing) -> None:
    from playwright.sync_api import expect

    # the Test button's call, Finish's, then the first chat turn: the picked model answers it at once
    ollama.script(said("OK"), said("OK"), said("Hello Ada, qwen here."))
    page.goto(gui.url)
    wizard = page.locator("#wizard")
    expect(wizard).to_be_visible()
    expect(page.locator("#tabs")).to_be_hidden()  # the wizard stands alone until finished or skipped
    one_click = page.get_by_label("Use qwen2.5:7b from Ollama")
    expect(one_click).to_be_visible()  # found on load
    page.fill("#wiz-name input, #wiz-name textarea", "Ada")
    page.get_by_label("Concise: short answers").check()
    one_click.check()
    page.fill("#wiz-tavily_api_key input", TAVILY_KEY)
    page.click("#wiz-test")
    expect(page.locator("#wiz-test-result")).to_contain_text("✓ qwen2.5:7b from Ollama answered")
    gui.shot(page, "wizard")
    page.click("#wiz-finish")
    expect(page.locator("#wiz-result")).to_contain_text("now answering with qwen2.5:7b from Ollama")
    expect(wizard).to_be_hidden()
    expect(page.locator("#tabs")).to_be_visible()
    expect(page.locator("#model input")).to_have_value(re.compile(r"^qwen2\.5:7b"))  # the selector follows
    expect(page.locator("#notice")).to_be_hidden()  # the start-up model's notice is about it only

    config = load_config(settings_file=settings_path(gui.data))
    assert config.user.setup_complete and config.user.name == "Ada" and config.user.style == "concise"
    assert config.models.main == "ollama" and config.providers["ollama"].model == "qwen2.5:7b"
    assert config.providers["ollama"].base_url == f"http://127.0.0.1:{port_of(ollama)}/v1"
    assert [r.body["model"] for r in ollama.requests if r.body][:2] == ["qwen2.5:7b", "qwen2.5:7b"]
    assert "The user's name is Ada." in system_prompt_reader(gui.data)()
    assert SecretStore(gui.data, keyring=lambda: None).as_env() == {"TAVILY_API_KEY": TAVILY_KEY}
    holding = [p.name for p in gui.data.rglob("*") if p.is_file() and TAVILY_KEY.encode() in p.read_bytes()]
    assert holding == [SECRETS_FILE]  # not in settings.yaml, the journal or a log

    page.fill("#msg textarea", "hello after setup")
    page.click("#send")
    expect(page.locator("#chatbot")).to_contain_text("Hello Ada, qwen here.")  # no restart
    expect(page.locator("#status")).to_contain_text("qwen2.5:7b")  # the status names who answered
    turn = ollama.requests[-1].body
    assert turn["model"] == "qwen2.5:7b" and "hello after setup" in turn["messages"][-1]["content"]

    page.get_by_role("tab", name="Settings").click()
    page.click("#settings-rerun")
    expect(page.locator("#wiz-tavily_api_key input")).to_have_value("")  # Finish emptied the key fields
    expect(page.locator("#wiz-name input, #wiz-name textarea").first).to_have_value("Ada")
    page.reload()  # setup is done: the wizard stays away
    page.wait_for_selector("#msg textarea")
    expect(wizard).to_be_hidden()
    expect(page.locator("#model input")).to_have_value(re.compile(r"^qwen2\.5:7b"))  # after a reload too
    expect(page.locator("#notice")).to_be_hidden()
    page.get_by_role("tab", name="Settings").click()
    page.click("#settings-rerun")  # a fresh page: the wizard starts from the saved settings, not empty
    expect(page.locator("#wiz-name input, #wiz-name textarea").first).to_have_value("Ada")
    expect(page.get_by_label("Concise: short answers")).to_be_checked()


def test_settings_tab_edits_the_personality_and_reopens_the_wizard(page: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    SecretStore(gui.data, keyring=lambda: None).set("TAVILY_API_KEY", TAVILY_KEY)  # as the wizard saves it
    save_settings(gui.data, {"user": {"setup_complete": True}})  # as the wizard leaves it (or run alone)
    page.goto(gui.url)
    page.wait_for_selector("#msg textarea")
    page.get_by_role("tab", name="Settings").click()
    box = page.locator("#personality textarea")
    expect(box).to_have_value(DEFAULT_PERSONALITY)  # read from the data dir when the tab opens
    keys = page.locator("#settings-keys")
    expect(keys).to_contain_text("TAVILY_API_KEY ••••cdef")  # masked
    expect(keys).not_to_contain_text(TAVILY_KEY[:-4])
    box.fill("You are Jeeves, a formal butler.")
    page.click("#personality-save")
    expect(page.locator("#personality-status")).to_contain_text("Saved")
    assert (gui.data / PERSONALITY_FILE).read_text().startswith("You are Jeeves")
    assert system_prompt_reader(gui.data)().startswith("You are Jeeves, a formal butler.")
    gui.shot(page, "settings")

    page.click("#personality-reset")
    expect(page.locator("#personality-status")).to_contain_text("default")
    assert not (gui.data / PERSONALITY_FILE).exists()
    page.click("#settings-rerun")
    expect(page.locator("#wizard")).to_be_visible()
    expect(page.locator("#tabs")).to_be_hidden()
