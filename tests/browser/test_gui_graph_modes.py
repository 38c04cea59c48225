"""The Graph tab and the chat's per-turn mode selector in a real browser (Debian chromium via Playwright).

The whole back end of tests/browser/gui_stack.py (its own server for this module, the `gui` fixture of
test_gui_tabs.py): a knowledge graph seeded as a session's facts would leave it, and the scripted model with
the modes the composition root gives a model (stream, best-of judged by the echo provider; no duel: one model
only).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.gui_page import Gui, open_page, send, tab
from tests.browser.gui_stack import seed_graph
from tests.browser.test_gui_tabs import gui  # noqa: F401 - the fixture: the same stack as the tab tests

pytestmark = [pytest.mark.browser, pytest.mark.slow]
EVIL = '<img src=x onerror="window.__pwned=1">${7*7}{{7*7}}'


def seed(server: Gui) -> None:
    seed_graph(
        server.stack,
        [
            ("Anna", "person", "lives_in", "Lisbon", "place"),
            ("Anna", "person", "works_at", "Acme", "organization"),
            ("Bruno", "person", "friend_of", "Anna", "person"),
            ("Anna", "person", "member_of", "Lisbon Rowing Club", "organization"),
            ("Anna", "person", "related_to", "Daemon", "project"),
            ("Lisbon", "place", "located_in", "Portugal", "place"),
        ],
        source="turn-seed-1",
    )


def test_graph_tab_draws_an_entity_and_a_click_recentres(context: Any, gui: Gui) -> None:  # noqa: F811
    from playwright.sync_api import expect

    seed(gui)
    page = open_page(context, gui)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    tab(page, "Graph")
    picture = page.locator("#graph-picture")
    # nothing typed: the most mentioned entity, Anna, in the centre with her neighbours around her
    expect(picture.locator('g.kg-centre[data-entity="anna"]')).to_be_visible()
    for neighbour in ("lisbon", "acme", "bruno"):
        expect(picture.locator(f'g.kg-node[data-entity="{neighbour}"]')).to_be_visible()
    expect(picture.locator('g[data-entity="portugal"]')).to_have_count(0)  # two hops away
    expect(picture).to_contain_text("lives in")
    relations = page.locator("#graph-relations")
    expect(relations).to_contain_text("turn-seed-1")
    gui.shot(page, "graph")

    picture.locator('g[data-entity="lisbon"] circle').click()
    expect(picture.locator('g.kg-centre[data-entity="lisbon"]')).to_be_visible()
    expect(picture.locator('g.kg-node[data-entity="portugal"]')).to_be_visible()
    expect(relations).to_contain_text("located in")
    expect(page.locator("#graph-info")).to_contain_text("Lisbon")

    # a hostile name (a document's or a user's words) is shown as text: no element, script or template
    seed_graph(gui.stack, [(EVIL, "person", "friend_of", "Anna", "person")], source="doc:evil.md")
    picture.locator('g[data-entity="anna"] circle').click()
    expect(picture.locator('g.kg-centre[data-entity="anna"]')).to_be_visible()
    expect(picture).to_contain_text("${7*7}{{7*7}}")
    expect(relations).to_contain_text("doc:evil.md")
    assert picture.locator("img").count() == 0
    assert page.evaluate("window.__pwned") is None
    assert all(url.startswith(gui.url.rstrip("/")) or url.startswith("data:") for url in requests), requests

    box = page.locator("#graph-entity input")  # a name typed in the search box, then Enter
    box.fill("Portu")
    expect(page.get_by_role("option", name="Portugal (place)")).to_be_visible()  # a suggestion
    box.fill("Portugal")
    box.press("Enter")
    expect(picture.locator('g.kg-centre[data-entity="portugal"]')).to_be_visible()


def test_best_of_for_one_turn_in_one_browser_while_another_stays_on_stream(browser: Any, gui: Gui) -> None:  # noqa: F811
    from playwright.sync_api import expect

    first, second = browser.new_context(), browser.new_context()
    try:
        a, b = open_page(first, gui), open_page(second, gui)
        modes = a.locator("#mode")
        expect(modes).to_contain_text(
            "duel (unavailable: needs a second model to answer beside this one (connect one in Settings))"
        )
        modes.get_by_label("best-of", exact=True).check()
        send(a, "pick the best")
        expect(a.locator("#chatbot")).to_contain_text("answered in best-of mode by scripted")
        expect(a.locator("#status")).to_contain_text("mode: best-of")
        expect(modes.get_by_label("as configured", exact=True)).to_be_checked()  # one turn only
        gui.shot(a, "chat-modes")

        send(b, "plain please")
        expect(b.locator("#chatbot")).to_contain_text("Echo: plain please")
        expect(b.locator("#status")).to_contain_text("mode: stream")
        expect(b.locator("#chatbot")).not_to_contain_text("answered in")
        expect(b.locator("#mode").get_by_label("as configured", exact=True)).to_be_checked()

        send(a, "and now plain")
        expect(a.locator("#chatbot")).to_contain_text("Echo: and now plain")
        expect(a.locator("#status")).to_contain_text("mode: stream")

        duel = modes.get_by_label(
            "duel (unavailable: needs a second model to answer beside this one (connect one in Settings))"
        )
        label = modes.locator('label[data-testid*="(unavailable:"]')
        assert label.evaluate("e => getComputedStyle(e).pointerEvents") == "none"  # shown disabled
        duel.evaluate("e => e.click()")  # as a keyboard could still pick it: the server refuses
        send(a, "duel anyway")
        expect(a.locator("#status")).to_contain_text(
            "needs a second model to answer beside this one (connect one in Settings)"
        )
        assert not [t for t in gui.stack.journal.turns() if t.user == "duel anyway"]  # nothing ran
    finally:
        first.close()
        second.close()
