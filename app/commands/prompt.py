"""`python main.py prompt TEXT [--budget N] [--session ID] [--explain] [--json]`: the prompt a message would
get, section by section with token counts (no model call, nothing stored)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.commands.base import Command, on_services
from ui.shared.boundary import count_arg, message_arg, session_arg

if TYPE_CHECKING:
    from core.config import AppConfig
    from ui.shared.services import Services


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", type=message_arg)
    budget_help = "token budget (default: from the config and the model)"
    parser.add_argument("--budget", type=count_arg(1, 10_000_000), help=budget_help)
    session_help = "assemble as part of this session (its recent turns)"
    parser.add_argument("--session", type=session_arg, help=session_help)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--explain", action="store_true", help="why each section and item is there")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.prompt import prompt_command

    def use(services: Services) -> int:
        return prompt_command(
            services.orchestrator,
            args.text,
            session_id=args.session,
            budget=args.budget,
            as_json=args.json,
            explain=args.explain,
        )

    return on_services(config, env, use)


COMMAND = Command("prompt", "the prompt a message would get (no model call, no storing)", _arguments, _run)
