"""The chat page in a real browser: streaming, Enter to send, Stop, New chat, and no external requests.

Fixtures (tests/browser/conftest.py): `server` (real Gradio app + Orchestrator + Journal + scripted agent on
127.0.0.1) and `page` (a fresh Playwright page on it, plus a recorder of every request it made).
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser


def send(page: Any, text: str, *, enter: bool = False) -> None:
    page.fill("#msg textarea", text)
    if enter:
        page.press("#msg textarea", "Enter")
    else:
        page.click("#send")


def test_chat_streams_answers_and_makes_no_external_requests(page: tuple[Any, Any], server: Any) -> None:
    from playwright.sync_api import expect

    tab, recorder = page
    expect(tab.locator("#notice")).to_contain_text("scripted test model")
    send(tab, "hello daemon")
    expect(tab.locator("#chatbot")).to_contain_text("Echo: hello daemon")
    expect(tab.locator("#status")).to_contain_text("scripted")
    expect(tab.locator("#msg textarea")).to_have_value("")

    send(tab, "second message", enter=True)
    expect(tab.locator("#chatbot")).to_contain_text("Echo: second message")
    turns = [t for t in server.journal.turns() if t.user in ("hello daemon", "second message")]
    assert [(t.status, t.assistant) for t in turns] == [
        ("complete", "Echo: hello daemon"),
        ("complete", "Echo: second message"),
    ]
    assert turns[0].session_id == turns[1].session_id

    assert recorder.urls, "the request recorder saw nothing"
    assert recorder.foreign == []


def test_tool_calls_show_and_new_chat_clears(page: tuple[Any, Any], server: Any) -> None:
    from playwright.sync_api import expect

    tab, recorder = page
    send(tab, "tool lookup")
    chat = tab.locator("#chatbot")
    expect(chat).to_contain_text("Echo: tool lookup")
    expect(chat).to_contain_text("search(query='tool lookup')")
    before = {t.session_id for t in server.journal.turns()}

    tab.click("#new")
    expect(chat).not_to_contain_text("Echo: tool lookup")
    send(tab, "fresh start")
    expect(chat).to_contain_text("Echo: fresh start")
    expect(chat).not_to_contain_text("tool lookup")
    [fresh] = [t for t in server.journal.turns() if t.user == "fresh start"]
    assert fresh.session_id not in before

    tab.click("#chatbot button[aria-label='Clear']")  # the Chatbot's own trash button is New chat too
    expect(chat).not_to_contain_text("fresh start")
    send(tab, "after clear")
    expect(chat).to_contain_text("Echo: after clear")
    [after] = [t for t in server.journal.turns() if t.user == "after clear"]
    assert after.session_id not in before | {fresh.session_id}
    assert recorder.foreign == []


def test_stop_ends_the_turn_and_keeps_the_partial_answer(page: tuple[Any, Any], server: Any) -> None:
    from playwright.sync_api import expect

    tab, _ = page
    send(tab, "slow please")
    expect(tab.locator("#chatbot")).to_contain_text("w2")
    tab.click("#stop")
    expect(tab.locator("#status")).to_contain_text("Stopped.", timeout=15_000)  # slow under load
    [turn] = [t for t in server.journal.turns() if t.user == "slow please"]
    assert turn.status == "cancelled" and turn.assistant.startswith("w0 w1 w2")
    assert "w199" not in turn.assistant


def test_model_output_cannot_make_the_page_fetch_anything(page: tuple[Any, Any]) -> None:
    from playwright.sync_api import expect

    tab, recorder = page
    send(tab, "attack")
    chat = tab.locator("#chatbot")
    expect(chat).to_contain_text("done.")
    expect(chat).to_contain_text("<img")  # shown as text, not rendered
    assert tab.locator("#chatbot img[src*='203.0.113.9']").count() == 0
    tab.wait_for_timeout(300)  # give any lazy image or CSS fetch time to show up
    assert recorder.foreign == []


def test_adversarial_markdown_renders_no_remote_image_and_fetches_nothing(page: tuple[Any, Any]) -> None:
    """Images hidden behind mid-line fences, references, nesting, raw HTML and table cells: none renders."""
    from playwright.sync_api import expect

    tab, recorder = page
    send(tab, "markdown attack")
    chat = tab.locator("#chatbot")
    expect(chat).to_contain_text("end.")  # the last shown line (a reference definition follows, unseen)
    expect(tab.locator("#status")).to_contain_text("scripted")  # the turn is over
    tab.wait_for_timeout(300)  # give any lazy image or CSS fetch time to show up
    media = ", ".join(
        f"#chatbot {tag}" for tag in ("img", "source", "video", "audio", "iframe", "object", "embed")
    )
    sources = tab.eval_on_selector_all(
        media, "els => els.map(e => ['src', 'srcset', 'data'].map(a => e.getAttribute(a) || '').join(' '))"
    )
    assert [src for src in sources if "203.0.113" in src or "//" in src] == []
    assert recorder.events and recorder.left_loopback() == []
    # What was an image is a link the user may follow; code shows the image syntax literally.
    expect(chat.locator("a[href='http://203.0.113.10/t.png?q=CANARY']")).to_have_count(1)
    expect(chat.locator("code", has_text="![code](http://203.0.113.19/k.png)")).to_have_count(1)
