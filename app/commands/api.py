"""`python main.py api [--host H] [--port P]`: an OpenAI-compatible chat API with memory (docs/api.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.commands.base import Command
from ui.shared.boundary import count_arg, user_text

if TYPE_CHECKING:
    from core.config import AppConfig


def _arguments(parser: argparse.ArgumentParser) -> None:
    bind = "address to bind (default 127.0.0.1; another address needs DAEMON_API_TOKEN)"
    parser.add_argument("--host", dest="api_host", metavar="HOST", type=user_text, help=bind)
    parser.add_argument(
        "--port",
        dest="api_port",
        metavar="PORT",
        type=count_arg(0, 65535),
        help="port (default 8765; 0: any)",
    )


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from app.builders.services import build_services
    from ui.api.serve import api_command

    # the bind and the port are checked before anything loads; then the services are built
    return api_command(args, env, lambda: build_services(config, env))


COMMAND = Command("api", "serve an OpenAI-compatible chat API (docs/api.md)", _arguments, _run)
