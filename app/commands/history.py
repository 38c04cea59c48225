"""`python main.py history [--session ID] [--limit N] [--json]`: past turns, read from the journal."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from app.commands.base import Command, on_services
from ui.shared.boundary import count_arg, session_arg

if TYPE_CHECKING:
    from core.config import AppConfig
    from ui.attach.client import DaemonClient
    from ui.shared.services import Services

MAX_TURNS = 1_000_000_000  # beyond this SQLite's LIMIT overflows; no journal holds that many


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", type=session_arg, help="only this session")
    parser.add_argument("--limit", type=count_arg(1, MAX_TURNS), help="only the last N turns")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.chat import history

    def use(services: Services) -> int:
        return history(services.orchestrator, session_id=args.session, as_json=args.json, limit=args.limit)

    def attached(client: DaemonClient) -> int:
        from ui.attach.client import RemoteConversation

        print(f"(through {client.describe()})", file=sys.stderr)
        conversation = RemoteConversation(client)
        return history(conversation, session_id=args.session, as_json=args.json, limit=args.limit)

    # reads the journal only: no models load, and it reads beside a process that holds the data dir
    return on_services(config, env, use, attached=attached, with_memory=False)


COMMAND = Command("history", "show past turns", _arguments, _run)
