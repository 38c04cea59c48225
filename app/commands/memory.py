"""`python main.py memory search QUERY | stats`: long-term memory as the chat searches it."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from app.commands.base import Command, on_services
from ui.shared.boundary import count_arg, message_arg

if TYPE_CHECKING:
    from core.config import AppConfig
    from ui.attach.client import DaemonClient
    from ui.shared.front_ports import Searchable
    from ui.shared.services import Services


def _arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    search = actions.add_parser("search", help="run the normal memory search for QUERY")
    search.add_argument("query", type=message_arg)
    search.add_argument("--collection", help="only this collection")
    search.add_argument("--k", type=count_arg(1, 1000), default=10, help="how many results (default 10)")
    search.add_argument("--intent", default="general", help="intent profile to score with (default general)")
    search.add_argument("--json", action="store_true")
    stats = actions.add_parser("stats", help="records per collection")
    stats.add_argument("--json", action="store_true")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    def use(services: Services) -> int:
        assert services.memory is not None
        return _memory(args, services.memory)

    def attached(client: DaemonClient) -> int:
        from ui.attach.client import RemoteMemory

        print(f"(through {client.describe()})", file=sys.stderr)
        return _memory(args, RemoteMemory(client))

    return on_services(config, env, use, attached=attached)


def _memory(args: argparse.Namespace, memory: Searchable) -> int:
    """`memory search|stats` over this process's store or the running Daemon's."""
    from ui.terminal.memory import memory_search, memory_stats

    if args.memory_command == "stats":
        return memory_stats(memory, as_json=args.json)
    return memory_search(
        memory, args.query, collection=args.collection, k=args.k, intent=args.intent, as_json=args.json
    )


COMMAND = Command("memory", "search long-term memory or count what it holds", _arguments, _run)
