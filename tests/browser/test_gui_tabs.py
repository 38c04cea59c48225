"""Every GUI tab in a real browser (Debian chromium through Playwright) over a whole back end.

The server holds real services (journal, memory service, facts, review queue, job ledger, ingester; see
tests/browser/gui_stack.py) with a scripted model, so a reply, a citation and a proposal are deterministic.
Each test saves a screenshot of its tab under the pytest tmp dir; with DAEMON_UPDATE_SCREENSHOTS=1 they are
also copied to docs/screenshots/ (the README's pictures).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import CHROMIUM_ARGS
from tests.browser.gui_page import Gui, free_port, open_page, send, tab, uploads_inside
from tests.browser.gui_stack import build_stack, seed_fact

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def gui(tmp_path_factory: pytest.TempPathFactory, chromium_path: Path) -> Iterator[Gui]:
    from ui.gui.app import build_app, launch
    from ui.gui.status_tab import health_payload

    data = tmp_path_factory.mktemp("gui-data")
    # As `gui` does: Gradio's uploads inside the data dir, which is blocked around them.
    restore_uploads = uploads_inside(data)
    stack = build_stack(data)
    seed_fact(stack, "user", "lives in", "Lyon")
    app = build_app(stack.orchestrator, title="Daemon", backends=stack.backends)
    url = launch(
        app,
        "127.0.0.1",
        free_port(),
        None,
        block=False,
        quiet=True,
        blocked_paths=[data],
        health=lambda: health_payload(stack.orchestrator, stack.backends),
        max_file_mb=2.0,
    )
    try:
        yield Gui(url, stack, data, tmp_path_factory.mktemp("screenshots"))
    finally:
        app.close()
        stack.close()
        restore_uploads()


def pick_row(page: Any, table: Any, text: str, target: str) -> None:
    """Click the table cell showing `text` and wait until the row's id reached the `target` box."""
    from playwright.sync_api import expect

    box = page.locator(f"{target} textarea, {target} input").first
    before = box.input_value()
    table.get_by_text(text, exact=True).last.click()
    expect(box).not_to_have_value(before or "")


def test_chat_streams_a_reply_and_a_reload_continues_the_session(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    page = open_page(context, gui)
    send(page, "hello from the tabs")
    expect(page.locator("#chatbot")).to_contain_text("Echo: hello from the tabs")
    expect(page.locator("#status")).to_contain_text("scripted")
    gui.shot(page, "chat")
    page.reload()
    page.wait_for_selector("#msg textarea")
    expect(page.locator("#chatbot")).to_contain_text("Echo: hello from the tabs")  # restored
    send(page, "and again")
    expect(page.locator("#chatbot")).to_contain_text("Echo: and again")
    turns = [t for t in gui.stack.journal.turns() if t.user in ("hello from the tabs", "and again")]
    assert len(turns) == 2 and turns[0].session_id == turns[1].session_id


def test_two_browsers_never_see_each_others_chat(browser: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    first, second = browser.new_context(), browser.new_context()
    try:
        a, b = open_page(first, gui), open_page(second, gui)
        send(a, "alpha private words")
        expect(a.locator("#chatbot")).to_contain_text("Echo: alpha private words")
        send(b, "beta words")
        expect(b.locator("#chatbot")).to_contain_text("Echo: beta words")
        expect(b.locator("#chatbot")).not_to_contain_text("alpha")
        b.reload()  # a reload continues this browser's own session, never the other's
        b.wait_for_selector("#msg textarea")
        expect(b.locator("#chatbot")).to_contain_text("Echo: beta words")
        expect(b.locator("#chatbot")).not_to_contain_text("alpha")
        expect(a.locator("#chatbot")).not_to_contain_text("beta")
        sessions = {
            t.session_id for t in gui.stack.journal.turns() if t.user in ("alpha private words", "beta words")
        }
        assert len(sessions) == 2
    finally:
        first.close()
        second.close()


def test_upload_a_document_then_ask_and_open_its_citation(context: Any, gui: Gui, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    doc = tmp_path / "zebra.md"
    doc.write_text("# Zebra protocol\n\nThe zebra protocol uses port 4242 for quokka messages.\n")
    page = open_page(context, gui)
    tab(page, "Documents")
    page.set_input_files("#doc-upload input[type=file]", str(doc))
    expect(page.locator("#doc-status")).to_contain_text("1/1 files", timeout=30_000)
    expect(page.locator("#doc-status")).to_contain_text("done")
    expect(page.locator("#docs")).to_contain_text("Zebra protocol")
    gui.shot(page, "documents")
    assert (gui.data / "uploads" / "zebra.md").is_file()  # kept where `docs reingest` finds it

    tab(page, "Chat")
    send(page, "cite which port does the zebra protocol use?")
    expect(page.locator("#chatbot")).to_contain_text("From your documents [1]")
    sources = page.locator("#sources")
    expect(sources).to_contain_text("port 4242")
    sources.get_by_text("[1]", exact=False).click()
    view = page.locator("#source-view")
    expect(view).to_contain_text("reference_docs")
    expect(view).to_contain_text("zebra.md")
    gui.shot(page, "chat-sources")


def test_edit_a_fact_supersedes_it_and_remove_can_be_undone(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    page = open_page(context, gui)
    tab(page, "Memory")
    facts = page.locator("#facts")
    expect(facts).to_contain_text("Lyon")
    pick_row(page, facts, "Lyon", "#fact-id")
    page.fill("#fact-value input, #fact-value textarea", "Paris")
    page.click("#fact-save")
    expect(page.locator("#fact-status")).to_contain_text("Lyon → Paris")
    expect(facts).to_contain_text("Paris")
    expect(facts).not_to_contain_text("Lyon")
    page.locator("#facts-history input").check()
    expect(facts).to_contain_text("Lyon")
    expect(facts).to_contain_text("superseded")
    stored = {f.object: f.status for f in gui.stack.backends.facts.list_facts()}
    assert stored == {"Lyon": "superseded", "Paris": "current"}

    page.locator("#facts-history input").uncheck()
    pick_row(page, facts, "Paris", "#fact-id")
    page.click("#fact-remove")
    expect(page.locator("#fact-status")).to_contain_text("removed")
    expect(facts).not_to_contain_text("Paris")
    page.click("#fact-undo")
    expect(page.locator("#fact-status")).to_contain_text("restored")
    expect(facts).to_contain_text("Paris")

    page.fill("#memory-query textarea, #memory-query input", "Paris")
    page.click("#memory-search")
    expect(page.locator("#memory-results")).to_contain_text("relevance")
    gui.shot(page, "memory")


def test_your_data_tab_shows_what_is_stored_and_exports_and_snapshots_it(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    page = open_page(context, gui)
    tab(page, "Your data")
    expect(page.locator("#data-stored")).to_contain_text("you")  # the facts: the user's own words
    expect(page.locator("#data-files")).to_contain_text("facts.sqlite3")
    expect(page.locator("#data-hosts")).to_contain_text("Nothing leaves this machine")
    expect(page.locator("#data-closed-only")).to_contain_text("python main.py purge --session ID")
    page.click("#data-export")
    expect(page.locator("#data-download")).to_contain_text("daemon-export-", timeout=60_000)
    page.click("#data-snapshot")
    expect(page.locator("#data-snapshot-status")).to_contain_text("read back whole", timeout=60_000)
    snapshots = page.locator("#data-snapshots")
    expect(snapshots).to_contain_text("daemon-")
    [taken] = sorted(gui.data.with_name(f"{gui.data.name}-backups").glob("daemon-*.zip"))
    pick_row(page, snapshots, taken.name, "#data-picked")
    page.click("#data-restore")
    expect(page.locator("#data-restore-status")).to_contain_text("the next time it starts")
    assert (gui.data / "restore-on-start.json").is_file()  # the next start restores it
    (gui.data / "restore-on-start.json").unlink()  # this module's GUI goes on with its folder
    gui.shot(page, "your-data")


def test_status_tab_lists_tools_with_reasons_and_health_answers(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    page = open_page(context, gui)
    tab(page, "Status")
    tools = page.locator("#status-tools")
    expect(tools).to_contain_text("web_search")
    expect(tools).to_contain_text("needs TAVILY_API_KEY")
    expect(tools).to_contain_text("asks for approval")
    expect(page.locator("#status-checks")).to_contain_text("memory store")
    gui.shot(page, "status")
    health = httpx.get(gui.url.rstrip("/") + "/health", timeout=10)
    assert health.status_code == 200 and health.json()["ok"] is True
    assert set(health.json()["checks"]) >= {"models", "memory store (Chroma)", "facts"}


def test_the_status_tab_shows_where_the_last_turns_time_went(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    page = open_page(context, gui)
    send(page, "trace this turn")
    expect(page.locator("#chatbot")).to_contain_text("Echo: trace this turn")
    tab(page, "Status")
    page.click("#trace-show")
    spans = page.locator("#trace-spans")
    expect(spans).to_contain_text("prompt.build")
    expect(spans).to_contain_text("pipeline.recall")
    expect(spans).to_contain_text("journal.commit")
    expect(page.locator("#trace-note")).to_contain_text("kept on this computer only")
    page.fill("#trace-turn textarea", "no-such-turn")
    page.click("#trace-show")
    expect(page.locator("#trace-note")).to_contain_text("No trace of turn")


def test_a_proposed_action_runs_only_when_approved(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    page = open_page(context, gui)
    send(page, "propose first")
    expect(page.locator("#approve")).to_be_visible()
    expect(page.locator("#proposal-text")).to_contain_text("save_note")
    page.click("#reject")
    expect(page.locator("#status")).to_contain_text("rejected")
    assert gui.stack.notes == []
    send(page, "propose second")
    expect(page.locator("#approve")).to_be_visible()
    page.click("#approve")
    expect(page.locator("#status")).to_contain_text("ran (approved)")
    assert gui.stack.notes == ["propose second"]


def test_sessions_tab_ends_a_session_shows_its_summary_and_reopens_it(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    page = open_page(context, gui)
    send(page, "session to reopen")
    expect(page.locator("#chatbot")).to_contain_text("Echo: session to reopen")
    page.click("#new")
    expect(page.locator("#chatbot")).not_to_contain_text("session to reopen")
    tab(page, "Sessions")
    table = page.locator("#sessions")
    expect(table).to_contain_text("session to reopen")
    pick_row(page, table, "session to reopen", "#session-id")
    page.click("#session-end")  # the real session-end steps (offline): a summary is written
    expect(page.locator("#session-status")).to_contain_text(
        "Saved the conversation."
    )  # in words; steps folded
    page.click("#sessions-refresh")
    expect(table).to_contain_text("Topics:")
    page.click("#session-open")
    expect(page.locator("#session-status")).to_contain_text("opened")
    gui.shot(page, "sessions")
    tab(page, "Chat")
    expect(page.locator("#chatbot")).to_contain_text("Echo: session to reopen")


def test_file_routes_never_reach_the_data_dir(gui: Gui) -> None:
    """`/file=` style traversal and direct paths into the data dir (facts, uploads) are refused."""
    secret = (gui.data / "facts.sqlite3").resolve()
    base = gui.url.rstrip("/")
    paths = [
        f"/file={secret}",
        f"/gradio_api/file={secret}",
        "/gradio_api/file=../../../../etc/passwd",
        "/gradio_api/file=%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        f"/gradio_api/file={gui.data}/uploads/zebra.md",
    ]
    for path in paths:
        response = httpx.get(base + path, timeout=10)
        assert response.status_code >= 400, path
        assert b"SQLite" not in response.content and b"root:" not in response.content
    assert httpx.get(base + "/health", headers={"Host": "rebind.evil"}, timeout=10).status_code == 400


def test_time_to_interactive_beside_a_static_page(browser: Any, gui: Gui, tmp_path: Path) -> None:
    """Not a timing assertion: prints page load → chat box usable (median of 5) beside a static page."""
    from tests.browser.tti import measure

    result = measure(browser, gui.url, tmp_path, runs=5)
    print(f"\nGUI time-to-interactive: {result}")
    assert result["gui_ms"]["p50"] > 0 and result["static_ms"]["p50"] > 0


_ = CHROMIUM_ARGS  # the module's browser fixture (conftest) launches chromium with these
