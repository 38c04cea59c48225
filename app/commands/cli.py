"""`python main.py cli`: the chat in the terminal (the running Daemon's, when one holds the data dir)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.commands.base import Command, no_arguments, on_services, resume_interrupted

if TYPE_CHECKING:
    from core.config import AppConfig
    from ui.attach.client import DaemonClient
    from ui.shared.services import Services


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.chat import Repl

    def use(services: Services) -> int:
        resume_interrupted(services)
        orchestrator, banner = services.orchestrator, services.banner()
        return Repl(orchestrator, banner=banner, sessions=services.sessions, tools=services.tools).run()

    def attached(client: DaemonClient) -> int:
        from ui.attach.client import RemoteConversation, attached_banner

        conversation = RemoteConversation(client)
        return Repl(conversation, banner=attached_banner(client, conversation.default_model)).run()

    return on_services(config, env, use, attached=attached)


COMMAND = Command("cli", "interactive chat in the terminal", no_arguments, _run)
