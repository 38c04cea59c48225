"""`python main.py ask TEXT [--session ID] [--json]`: one turn, through the same orchestrator as the GUI."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from app.commands.base import Command, on_services
from ui.shared.boundary import message_arg, session_arg

if TYPE_CHECKING:
    from core.config import AppConfig
    from ui.attach.client import DaemonClient
    from ui.shared.services import Services


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", type=message_arg, help="your message")
    parser.add_argument("--session", type=session_arg, help="continue this session id")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.chat import ask

    def use(services: Services) -> int:
        return ask(services.orchestrator, args.text, session_id=args.session, as_json=args.json)

    def attached(client: DaemonClient) -> int:
        from ui.attach.client import RemoteConversation

        print(f"(through {client.describe()})", file=sys.stderr)
        return ask(RemoteConversation(client), args.text, session_id=args.session, as_json=args.json)

    return on_services(config, env, use, attached=attached)


COMMAND = Command("ask", "ask one question and print the answer", _arguments, _run)
