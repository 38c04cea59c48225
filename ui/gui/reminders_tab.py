"""Reminders in the GUI: the banner above the tabs where due ones appear, and the Tasks tab's Reminders (the
list, adding one in words, removing one; the background tasks below them).

The GUI's server checks the task book on a background thread (ui/shared/reminders.py) and puts what came
due on the `ReminderBoard`; every open page polls the board with a timer and shows what was not dismissed.
One person uses Daemon, so dismissing a reminder on one page dismisses it on all of them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from core.schedule.tasks import Firing
from core.schedule.when import parse_when
from ui.gui.widgets import row_picker, said
from ui.shared.background import task_detail
from ui.shared.render import markdown_text

if TYPE_CHECKING:
    from memory.tasks import TaskStore
    from ui.shared.background import BackgroundRunner

TASK_HEADERS = ["id", "when", "reminder"]
BANNER_POLL_S = 2.0  # how often an open page asks the board (the server checks the book on its own)


@dataclass
class ReminderBoard:
    """Due reminders waiting for the user to read them, shared by every page this server serves."""

    _firings: list[Firing] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, firings: list[Firing]) -> None:
        """Put due reminders up (called from the server's checking thread)."""
        with self._lock:
            self._firings.extend(firings)

    def pending(self) -> list[Firing]:
        """The reminders not yet dismissed, oldest first."""
        with self._lock:
            return list(self._firings)

    def dismiss(self) -> None:
        """Take down everything up now."""
        with self._lock:
            self._firings.clear()


@dataclass
class ReminderDesk:
    """What the banner and the tab work on: the task book, the board of due reminders and notices, and
    the background tasks (None: this build runs none)."""

    book: TaskStore
    board: ReminderBoard = field(default_factory=ReminderBoard)
    background: BackgroundRunner | None = None


BACKGROUND_HEADERS = ["id", "task", "state", "progress or result"]


def background_rows(desk: ReminderDesk) -> list[list[str]]:
    if desk.background is None:
        return []
    return [[t.id, t.title, t.state, task_detail(t)] for t in desk.background.tasks()]


def start_background(desk: ReminderDesk, text: str) -> str:
    """Queue what the user typed for the default subagent; what happened, in words."""
    runner = desk.background
    if runner is None or not runner.agents:
        return "Background tasks need a connected model (the built-in one cannot use tools)."
    agent = next(iter(runner.agents))

    def start() -> str:
        task = runner.submit(text, agent, origin="gui")
        budget = markdown_text(runner.budget_of(agent))
        return f"Queued for the {markdown_text(agent)} ({budget}): {markdown_text(task.title)}"

    return said(start)


def cancel_background(desk: ReminderDesk, task_id: str) -> str:
    if desk.background is None or not (task_id or "").strip():
        return "Click a background task in the list first."
    runner = desk.background

    def cancel() -> str:
        task = runner.cancel(task_id)
        return f"{markdown_text(task.title)}: {task.state} (a running task stops at its next step)."

    return said(cancel)


def banner_markdown(desk: ReminderDesk) -> str:
    """The banner's text: one line per due reminder (Markdown-safe), "" when there is none."""
    return "\n".join(f"**{markdown_text(f.line(desk.book.zone))}**  " for f in desk.board.pending())


def task_rows(desk: ReminderDesk) -> list[list[str]]:
    zone = desk.book.zone
    return [[t.id, t.describe_when(zone), t.text] for t in desk.book.tasks()]


def add_reminder(desk: ReminderDesk, text: str, when: str) -> str:
    """Add what the user typed; the moment read, or the question when the words give no usable time."""

    def add() -> str:
        moment = parse_when(when, datetime.now(desk.book.zone))
        task = desk.book.add(text, moment, origin="gui")
        return f"Reminder set: {markdown_text(moment.describe())}: {markdown_text(task.text)}"

    return said(add)


def remove_reminder(desk: ReminderDesk, task_id: str) -> str:
    if not (task_id or "").strip():
        return "Click a reminder in the list first."
    return said(lambda: f"Removed: {markdown_text(desk.book.remove(task_id).text)}")


def build_reminder_banner(gr: Any, desk: ReminderDesk | None) -> None:
    """The banner above the tabs: shown while a due reminder waits, with a button that takes it down."""
    if desk is None:
        return
    with gr.Row(elem_id="reminder-banner", visible=False) as banner:
        text = gr.Markdown("", elem_id="reminder-text")
        dismiss = gr.Button("Dismiss", elem_id="reminder-dismiss", size="sm", scale=0, min_width=110)

    def poll() -> tuple[Any, Any]:
        shown = banner_markdown(desk)
        return gr.update(visible=bool(shown)), shown

    def take_down() -> tuple[Any, Any]:
        desk.board.dismiss()
        return gr.update(visible=False), ""

    gr.Timer(BANNER_POLL_S).tick(poll, None, [banner, text], show_progress="hidden", queue=False)
    dismiss.click(take_down, None, [banner, text], show_progress="hidden", queue=False)


def build_reminders_tab(gr: Any, desk: ReminderDesk | None) -> dict[str, Any] | None:
    """The tab's widgets and handlers; a note when this build has no task book."""
    if desk is None:
        gr.Markdown("Reminders are not available in this build.")
        return None
    c: dict[str, Any] = {}
    gr.Markdown(
        "Due reminders appear above the tabs (and in a terminal chat, and as a system notification where "
        f"there is one). Times are in `{desk.book.zone}`. The chat can propose them too: “remind me on "
        "Thursday at 9 to call the dentist”."
    )
    with gr.Row(equal_height=True):
        c["text"] = gr.Textbox(label="Remind me to", elem_id="reminder-what", scale=3)
        c["when"] = gr.Textbox(
            label="When",
            placeholder="Thursday at 9 · in 20 minutes · every Monday at 8",
            elem_id="reminder-when",
        )
        c["add"] = gr.Button("Add", elem_id="reminder-add", variant="primary", scale=0)
    c["status"] = gr.Markdown("", elem_id="reminder-status")
    c["tasks"] = gr.Dataframe(headers=TASK_HEADERS, elem_id="reminder-list", interactive=False)
    with gr.Row(equal_height=True):
        c["picked"] = gr.Textbox(label="Reminder (click a row)", elem_id="reminder-picked", interactive=False)
        c["remove"] = gr.Button("Remove", elem_id="reminder-remove", scale=0)

    def add(text: str, when: str) -> tuple[str, list[list[str]]]:
        return add_reminder(desk, text, when), task_rows(desk)

    def remove(task_id: str) -> tuple[str, list[list[str]]]:
        return remove_reminder(desk, task_id), task_rows(desk)

    c["add"].click(add, [c["text"], c["when"]], [c["status"], c["tasks"]])
    c["tasks"].select(row_picker(gr), None, c["picked"])
    c["remove"].click(remove, c["picked"], [c["status"], c["tasks"]])
    _background_section(gr, desk, c)
    c["reload"] = lambda: (task_rows(desk), background_rows(desk))
    c["reload_outputs"] = [c["tasks"], c["jobs"]]
    return c


def _background_section(gr: Any, desk: ReminderDesk, c: dict[str, Any]) -> None:
    """Background tasks: start one, watch its progress, cancel it; results also come on the banner."""
    gr.Markdown("### Background tasks")
    with gr.Row(equal_height=True):
        c["job_text"] = gr.Textbox(label="Research in the background", elem_id="job-text", scale=3)
        c["job_start"] = gr.Button("Start", elem_id="job-start", scale=0, min_width=90)
    c["job_status"] = gr.Markdown("", elem_id="job-status")
    c["jobs"] = gr.Dataframe(headers=BACKGROUND_HEADERS, elem_id="job-list", interactive=False, wrap=True)
    with gr.Row(equal_height=True):
        c["job_picked"] = gr.Textbox(
            label="Task (click a row)", elem_id="job-picked", interactive=False, scale=3
        )
        c["job_refresh"] = gr.Button("Refresh", elem_id="job-refresh", scale=0, min_width=90)
        c["job_cancel"] = gr.Button("Cancel", elem_id="job-cancel", scale=0, min_width=90)

    def start(text: str) -> tuple[str, list[list[str]]]:
        return start_background(desk, text), background_rows(desk)

    def cancel(task_id: str) -> tuple[str, list[list[str]]]:
        return cancel_background(desk, task_id), background_rows(desk)

    c["job_start"].click(start, c["job_text"], [c["job_status"], c["jobs"]])
    c["jobs"].select(row_picker(gr), None, c["job_picked"])
    c["job_cancel"].click(cancel, c["job_picked"], [c["job_status"], c["jobs"]])
    c["job_refresh"].click(lambda: background_rows(desk), None, c["jobs"])
