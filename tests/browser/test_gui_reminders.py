"""Reminders in a real browser: one proposed in the chat runs only when approved and then appears on the
banner at its time; one missed while Daemon was closed is on the banner of the first page; the Reminders
tab adds one from words (asking when the words are not a time) and removes one.

The server checks the task book as `gui` does (ui/shared/reminders.py), every 0.3 s here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from core.schedule.when import When
from tests.browser.gui_page import Gui, open_page, send, stack_served, tab
from ui.shared.reminders import ReminderFeed, reminders_delivered

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def gui(tmp_path_factory: pytest.TempPathFactory, chromium_path: Path) -> Iterator[Gui]:
    def missed_while_closed(stack: Any) -> None:
        book = stack.backends.reminders.book
        book.add("renew the passport", When(datetime.now(book.zone) - timedelta(hours=3)), origin="cli")

    with stack_served(tmp_path_factory, "gui-reminders", missed_while_closed) as served:
        desk = served.stack.backends.reminders
        with reminders_delivered(ReminderFeed(desk.book), desk.board.add, every_s=0.3):
            yield served


def test_a_reminder_missed_while_closed_is_on_the_first_pages_banner_until_dismissed(
    context: Any, gui: Gui
) -> None:
    from playwright.sync_api import expect

    page = open_page(context, gui)
    banner = page.locator("#reminder-text")
    expect(banner).to_contain_text("missed while Daemon was closed", timeout=15_000)
    expect(banner).to_contain_text("renew the passport")
    page.click("#reminder-dismiss")
    expect(page.locator("#reminder-banner")).to_be_hidden()
    page.reload()
    page.wait_for_selector("#msg textarea")
    page.wait_for_timeout(3000)  # a poll or more: dismissed stays dismissed
    expect(page.locator("#reminder-banner")).to_be_hidden()


def test_a_proposed_reminder_is_set_only_when_approved_and_shows_on_the_banner_at_its_time(
    context: Any, gui: Gui
) -> None:
    from playwright.sync_api import expect

    book = gui.stack.backends.reminders.book
    page = open_page(context, gui)
    send(page, "remind me in 3 seconds to stretch your legs")
    expect(page.locator("#proposal-text")).to_contain_text("Remind you soon")
    assert book.tasks() == []  # proposed, not set
    page.click("#approve")
    expect(page.locator("#status")).to_contain_text("ran (approved)")
    assert [t.text for t in book.tasks()] == ["stretch your legs"]
    expect(page.locator("#reminder-text")).to_contain_text("Reminder: stretch your legs", timeout=20_000)
    gui.shot(page, "reminder-banner")
    page.click("#reminder-dismiss")
    expect(page.locator("#reminder-banner")).to_be_hidden()


def test_the_reminders_tab_asks_for_a_time_it_cannot_read_adds_and_removes(context: Any, gui: Gui) -> None:
    from playwright.sync_api import expect

    page = open_page(context, gui)
    tab(page, "Tasks")  # its first inner tab: Reminders
    page.fill("#reminder-what textarea", "call the dentist")
    page.fill("#reminder-when textarea", "next blursday")
    page.click("#reminder-add")
    expect(page.locator("#reminder-status")).to_contain_text("could not read")
    page.fill("#reminder-when textarea", "every Monday at 8")
    page.click("#reminder-add")
    expect(page.locator("#reminder-status")).to_contain_text("every Monday at 08:00")
    table = page.locator("#reminder-list")
    expect(table).to_contain_text("call the dentist")
    gui.shot(page, "reminders")
    table.get_by_text("call the dentist", exact=True).last.click()
    expect(page.locator("#reminder-picked textarea")).to_have_value(re.compile(r"^task_"))
    page.click("#reminder-remove")
    expect(page.locator("#reminder-status")).to_contain_text("Removed: call the dentist")
    expect(table).not_to_contain_text("call the dentist")
