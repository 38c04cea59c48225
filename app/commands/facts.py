"""`python main.py facts list [--status S] [--json]`: what Daemon holds as true, corrections as history."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from app.commands.base import Command, on_services

if TYPE_CHECKING:
    from core.config import AppConfig
    from ui.attach.client import DaemonClient
    from ui.shared.services import Services


def _arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="facts_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="list current and superseded facts")
    listing.add_argument("--status", choices=["current", "superseded"], help="only facts with this status")
    listing.add_argument("--json", action="store_true", help="print one JSON object")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.facts import list_facts

    def use(services: Services) -> int:
        assert services.facts is not None
        return list_facts(services.facts, status=args.status, as_json=args.json)

    def attached(client: DaemonClient) -> int:
        from ui.attach.client import RemoteFacts

        print(f"(through {client.describe()})", file=sys.stderr)
        return list_facts(RemoteFacts(client), status=args.status, as_json=args.json)

    return on_services(config, env, use, attached=attached)


COMMAND = Command("facts", "what Daemon holds as true, with corrections kept as history", _arguments, _run)
