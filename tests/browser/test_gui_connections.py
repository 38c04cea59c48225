"""The Connections tab in a real browser: a connection is reviewed blind (no generator shown), an answer
left out records nothing, an accepted one is kept in memory with its sources, a declined one is not."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge.synthesis.candidate import Candidate, Endpoint, Reading, StageResult
from tests.browser.gui_page import Gui, open_page, stack_served, tab

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _queue(gui: Gui) -> list[str]:
    engine = gui.stack.backends.synthesis
    readings = []
    for n, (left, right, bridge) in enumerate(
        [
            (
                "My sourdough starter only stays alive if I feed it every day.",
                "My savings only grow if I put a little in every week.",
                "A sourdough starter and a savings habit both live on small, regular feeding.",
            ),
            (
                "The telescope mirror must cool down before the stars look sharp.",
                "Bread dough has to rest overnight before it bakes well.",
                "A telescope mirror and bread dough both need rest before they perform.",
            ),
        ]
    ):
        candidate = Candidate(
            Endpoint(left, f"note-{n}a", "obsidian_notes"),
            Endpoint(right, f"note-{n}b"),
            bridge,
            "graph_walk",
            via="SECRET-PATH",
        )
        stages = [StageResult("coherence", True, 1.0, "STRONG"), StageResult("composite", True, 0.8, "ok")]
        readings.append(Reading(candidate, stages, "passed", ("food and cooking", "money and finance"), 0.8))
    engine.book.record("run-browser", readings)
    return [r.candidate.id for r in readings]


@pytest.fixture(scope="module")
def gui(tmp_path_factory: pytest.TempPathFactory, chromium_path: Path) -> Iterator[Gui]:
    with stack_served(tmp_path_factory, "gui-connections") as served:
        yield served


def test_a_connection_is_graded_blind_and_an_accepted_one_is_kept_with_its_sources(
    context: Any, gui: Gui
) -> None:
    from playwright.sync_api import expect

    first, second = _queue(gui)
    page = open_page(context, gui)
    tab(page, "Tasks")
    tab(page, "Connections")
    card = page.locator("#connection-card")
    expect(card).to_contain_text("small, regular feeding")
    expect(page.locator("#connection-queue")).to_contain_text("2 connections wait for your review")
    body = page.locator("body").inner_text()
    assert "graph_walk" not in body and "SECRET-PATH" not in body  # blind: no generator, no path
    page.locator("#screen-sensible").get_by_label("Yes").check()
    page.click("#connection-grade")
    expect(page.locator("#connection-status")).to_contain_text("Answer the three questions")
    assert gui.stack.backends.synthesis.book.get(first).status == "queued"
    expect(page.locator("#screen-sensible").get_by_label("Yes")).to_be_checked()  # the answer stays
    page.locator("#screen-real_link").get_by_label("Yes").check()
    page.locator("#screen-new_to_me").get_by_label("Yes").check()
    page.locator("#connection-rating").get_by_label("4").check()
    gui.shot(page, "connections")
    page.click("#connection-grade")
    expect(page.locator("#connection-status")).to_contain_text("Kept (4/5)")
    expect(page.locator("#connection-kept")).to_contain_text("small, regular feeding")
    expect(card).to_contain_text("need rest before they perform")  # the next one
    kept = gui.stack.memory.store.get("synthesis_results", ids=[first])
    assert len(kept) == 1 and json.loads(kept[0].metadata["source_ids"]) == ["note-0a", "note-0b"]
    page.locator("#screen-sensible").get_by_label("Yes").check()
    page.locator("#screen-real_link").get_by_label("No").check()
    page.locator("#screen-new_to_me").get_by_label("Yes").check()
    page.locator("#connection-rating").get_by_label("2").check()
    page.click("#connection-grade")
    expect(page.locator("#connection-status")).to_contain_text("Declined (2/5)")
    expect(card).to_contain_text("Nothing waits for your review")
    assert gui.stack.backends.synthesis.book.get(second).status == "declined"
    assert gui.stack.memory.store.get("synthesis_results", ids=[second]) == []
