"""`python main.py mcp [--http PORT]`: the memory tools for MCP clients (docs/mcp.md), over the stores of
the data dir, held like any front end holds them."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from typing import TYPE_CHECKING

from app.commands.base import Command
from ui.shared.boundary import count_arg

if TYPE_CHECKING:
    from core.config import AppConfig


def _arguments(parser: argparse.ArgumentParser) -> None:
    http_help = "streamable HTTP on 127.0.0.1:PORT (0: any port); bearer token in the data dir's mcp_token"
    parser.add_argument("--http", type=count_arg(0, 65535), metavar="PORT", help=http_help)


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from app import VERSION
    from app.builders.memory import build_remembering, open_journal
    from app.builders.models import side_model
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory
    from core.turn_context import JournalHistory
    from memory.lock import DataDirLock
    from ui.mcp_server.server import (
        TOKEN_FILE,
        MemoryBridge,
        build_mcp_server,
        serve_http,
        serve_stdio,
        stdout_to_stderr,
    )

    with ExitStack() as stack:
        stack.callback(DataDirLock(config.data_dir).close)
        with stdout_to_stderr():  # over stdio, stdout is the protocol's: nothing a model loader prints
            journal = open_journal(config, stack)
            factory = ProviderFactory(config, env, CostLedger(budget_usd=config.budget.max_usd))
            side = side_model(config, factory, factory.available()[0])  # the gate's adjudicator, as in chat
            history = JournalHistory(journal, config.history.recent_turns)
            parts = build_remembering(config, journal, history, side, stack)
        bridge = MemoryBridge(
            parts.memory, journal, parts.port, parts.facts, parts.knowledge, parts.extractor
        )
        server = build_mcp_server(bridge, VERSION)
        if args.http is None:
            return serve_stdio(server)
        return serve_http(server, args.http, config.data_dir / TOKEN_FILE)


COMMAND = Command("mcp", "serve your memory to MCP clients (stdio; --http for HTTP)", _arguments, _run)
