"""`python main.py cli`: the chat in the terminal (the running Daemon's, when one holds the data dir)."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from typing import TYPE_CHECKING

from app.commands.base import Command, no_arguments, on_services, resume_interrupted

if TYPE_CHECKING:
    from core.config import AppConfig
    from ui.attach.client import DaemonClient
    from ui.shared.services import Services


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from app.builders.tasks import open_task_book
    from ui.shared.background import scheduled_runs
    from ui.shared.reminders import ReminderFeed, system_notifier
    from ui.terminal.chat import Repl

    notify = config.tasks.os_notifications

    def use(services: Services) -> int:
        resume_interrupted(services)
        if services.background is not None:
            services.background.start()  # tasks a crash or a close cut off are resumed (or failed) first
        orchestrator, banner = services.orchestrator, services.banner()
        book = services.tasks
        return Repl(
            orchestrator,
            banner=banner,
            sessions=services.sessions,
            tools=services.tools,
            reminders=services.reminder_feed(),
            reminder_every_s=config.tasks.check_every_s,
            notifier=system_notifier(book.zone, enabled=notify) if book is not None else None,
            act=scheduled_runs(services.background, book) if book is not None else None,
        ).run()

    def attached(client: DaemonClient) -> int:
        from ui.attach.client import RemoteConversation, attached_banner

        conversation = RemoteConversation(client)
        with ExitStack() as stack:  # the task book is shared with the running Daemon (SQLite keeps order)
            book = open_task_book(config, env, stack)
            return Repl(
                conversation,
                banner=attached_banner(client, conversation.default_model),
                reminders=ReminderFeed(book),
                reminder_every_s=config.tasks.check_every_s,
                notifier=system_notifier(book.zone, enabled=notify),
            ).run()

    return on_services(config, env, use, attached=attached)


COMMAND = Command("cli", "interactive chat in the terminal", no_arguments, _run)
