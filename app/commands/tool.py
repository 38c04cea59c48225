"""`python main.py tool list | run NAME [--args JSON] [--approve]`: the agent's tools, called directly with
the agent's guards."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from typing import TYPE_CHECKING

from app.commands.base import Command
from ui.shared.boundary import user_text

if TYPE_CHECKING:
    from core.config import AppConfig
    from core.tools.catalog import ToolCatalog


def _arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="tool_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="list the tools and their argument schemas")
    listing.add_argument("--json", action="store_true")
    run = actions.add_parser("run", help="run one tool")
    run.add_argument("name", type=user_text)
    run.add_argument("--args", type=user_text, default="{}", help="arguments as a JSON object")
    approve = "run a tool with side effects (without it, such a tool is refused, as in the agent loop)"
    run.add_argument("--approve", action="store_true", help=approve)
    run.add_argument("--json", action="store_true")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    """The memory stores are opened only when the command needs them: listing every tool, or running one
    that is not among the light ones."""
    from app.builders.tasks import open_task_book
    from app.builders.tools import build_tool_catalog, build_tool_policy, open_mcp_runtime, open_tool_stores
    from ui.shared.tool_runner import ToolRunner
    from ui.terminal.tools import list_tools, run_tool

    with ExitStack() as stack:
        mcp = open_mcp_runtime(config, stack)
        catalog = build_tool_catalog(config, env, mcp=mcp)  # the light tools open nothing in the data dir
        if args.tool_command == "list" or args.name not in _names(catalog):
            stores = open_tool_stores(config, stack)
            tasks = open_task_book(config, env, stack)
            catalog = build_tool_catalog(config, env, mcp=mcp, tasks=tasks, **stores)
        if args.tool_command == "list":
            return list_tools(catalog, as_json=args.json)
        runner = ToolRunner(catalog, build_tool_policy(config).policy)
        return run_tool(runner, args.name, args.args, as_json=args.json, approve=args.approve)


def _names(catalog: ToolCatalog) -> set[str]:
    return {*catalog.available.names(), *(u.name for u in catalog.unavailable)}


COMMAND = Command("tool", "list or run the agent's tools directly", _arguments, _run, keeps_data=False)
