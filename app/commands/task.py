"""`python main.py task add|list|remove|cancel`: reminders and background tasks, from the shell (beside a
running GUI too: the task book and the ledger are SQLite files, shared safely)."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from typing import TYPE_CHECKING

from app.commands.base import Command

if TYPE_CHECKING:
    from core.config import AppConfig
    from memory.background import BackgroundLedger


def _arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="task_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="add a reminder: task add 'call the dentist' --when 'Thursday at 9'")
    add.add_argument("text", help="what to be reminded of")
    add.add_argument(
        "--when",
        required=True,
        help="when, in words: 'Thursday at 9', 'in 20 minutes', 'every Monday at 8', 'the 1st of each month'",
    )
    add.add_argument(
        "--run", action="store_true", help="do TEXT as a background task at each slot instead of reminding"
    )
    add.add_argument("--json", action="store_true", help="print one JSON object")
    listing = actions.add_parser("list", help="the active reminders, soonest first")
    listing.add_argument("--all", action="store_true", help="also the finished and removed ones")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    remove = actions.add_parser("remove", help="stop a reminder (it stays listed with --all)")
    remove.add_argument("task_id", help="the reminder's id, as `task list` shows it")
    remove.add_argument("--json", action="store_true", help="print one JSON object")
    cancel = actions.add_parser(
        "cancel", help="stop a background task (the running Daemon stops it at its next step)"
    )
    cancel.add_argument("task_id", help="the background task's id (bg_…), as `task list` shows it")
    cancel.add_argument("--json", action="store_true", help="print one JSON object")


def open_ledger(config: AppConfig, stack: ExitStack) -> BackgroundLedger:
    """The background tasks' ledger (shared with a running Daemon: SQLite keeps them apart)."""
    from memory.background import BACKGROUND_FILE, BackgroundLedger

    ledger = BackgroundLedger(config.data_dir / BACKGROUND_FILE)
    stack.callback(ledger.close)
    return ledger


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from datetime import datetime

    from app.builders.tasks import open_task_book
    from core.schedule.when import parse_when
    from ui.terminal.reminders import show_added, show_cancelled, show_removed, show_tasks

    with ExitStack() as stack:
        book = open_task_book(config, env, stack)
        ledger = open_ledger(config, stack)
        if args.task_command == "cancel":
            return show_cancelled(ledger.request_cancel(args.task_id), as_json=args.json)
        if args.task_command == "add":
            when = parse_when(args.when, datetime.now(book.zone))
            task = book.add(args.text, when, origin="cli", kind="agent" if args.run else "reminder")
            return show_added(task, when, book.zone, as_json=args.json)
        if args.task_command == "list":
            reminders = book.tasks(include_finished=args.all)
            return show_tasks(reminders, ledger.tasks(), book.zone, as_json=args.json)
        return show_removed(book.remove(args.task_id), book.zone, as_json=args.json)


COMMAND = Command(
    "task", "reminders (add, list, remove) and background tasks (list, cancel)", _arguments, _run
)
