"""Notes, to-dos and skills in a real browser: a to-do proposed in the chat is added only when approved; the
Notes tab adds, searches and marks done (kept, shown again with "show done"); the Skills tab writes, opens
and removes a skill."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.gui_page import Gui, open_page, send, stack_served, tab

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def gui(tmp_path_factory: pytest.TempPathFactory, chromium_path: Path) -> Iterator[Gui]:
    with stack_served(tmp_path_factory, "gui-notes") as served:
        yield served


def test_a_todo_proposed_in_the_chat_is_added_only_when_approved(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    book = gui.stack.backends.notes
    page = open_page(context, gui)
    send(page, "todo book the vet")
    expect(page.locator("#proposal-text")).to_contain_text("Add a to-do: book the vet")
    page.click("#reject")
    expect(page.locator("#status")).to_contain_text("rejected")
    assert book.notes("todo") == []
    send(page, "todo book the vet")
    expect(page.locator("#approve")).to_be_visible()
    page.click("#approve")
    expect(page.locator("#status")).to_contain_text("ran (approved)")
    assert [t.text for t in book.notes("todo")] == ["book the vet"]


def test_the_notes_tab_adds_searches_and_marks_a_todo_done(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    page = open_page(context, gui)
    tab(page, "Tasks")
    tab(page, "Notes and to-dos")
    page.fill("#note-text textarea", "renew the passport")
    page.click("#note-add")
    expect(page.locator("#note-status")).to_contain_text("Added: renew the passport")
    page.get_by_label("Note", exact=True).check()
    page.fill("#note-text textarea", "the spare key is with Maya")
    page.click("#note-add")
    table = page.locator("#note-list")
    expect(table).to_contain_text("the spare key is with Maya")
    page.fill("#note-query textarea", "spare key")
    page.click("#note-search")
    expect(table).not_to_contain_text("renew the passport")
    page.fill("#note-query textarea", "")
    page.click("#note-search")
    table.get_by_text("renew the passport", exact=True).last.click()
    expect(page.locator("#note-picked textarea")).to_have_value(re.compile(r"^todo_"))
    gui.shot(page, "notes")
    page.click("#note-done")
    expect(page.locator("#note-status")).to_contain_text("Done: renew the passport")
    expect(table).not_to_contain_text("renew the passport")
    page.locator("#note-show-done input").check()
    expect(table).to_contain_text("renew the passport")


def test_the_skills_tab_writes_edits_and_removes_a_skill(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    library = gui.stack.backends.skills
    page = open_page(context, gui)
    tab(page, "Tasks")
    tab(page, "Skills")
    page.fill("#skill-name textarea", "weekly-review")
    page.fill("#skill-when textarea", "I ask for a review of my week")
    page.fill("#skill-steps textarea", "1. List my open to-dos.\n2. Say what is still open.")
    page.click("#skill-save")
    expect(page.locator("#skill-status")).to_contain_text("Saved")
    table = page.locator("#skill-list")
    expect(table).to_contain_text("I ask for a review of my week")
    assert library.catalog() == ["weekly-review: use when I ask for a review of my week"]
    page.fill("#skill-name textarea", "")
    table.get_by_text("weekly-review", exact=True).last.click()
    expect(page.locator("#skill-name textarea")).to_have_value("weekly-review")
    expect(page.locator("#skill-steps textarea")).to_have_value(
        "1. List my open to-dos.\n2. Say what is still open."
    )
    gui.shot(page, "skills")
    page.click("#skill-remove")
    expect(page.locator("#skill-status")).to_contain_text("Removed")
    expect(table).not_to_contain_text("weekly-review")
    assert library.skills() == []
