"""`python main.py session end [--session ID] [--json]`: run or resume a session's end processing
(summaries, facts, reflection, the graph)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.commands.base import Command, on_services, resume_interrupted
from ui.shared.boundary import session_arg

if TYPE_CHECKING:
    from core.config import AppConfig
    from ui.shared.services import Services


def _arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="session_command", metavar="ACTION", required=True)
    end = actions.add_parser("end", help="run or resume the session-end steps for a session")
    end.add_argument("--session", type=session_arg, help="the session id (default: the most recent session)")
    end.add_argument("--json", action="store_true", help="print one JSON object")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.sessions import end_session

    def use(services: Services) -> int:
        assert services.sessions is not None
        resume_interrupted(services)
        return end_session(services.sessions, args.session, as_json=args.json)

    return on_services(config, env, use)


COMMAND = Command("session", "session-end processing (summaries, facts, reflection)", _arguments, _run)
