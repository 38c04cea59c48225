"""`python main.py review list|approve|dismiss|undo|purge`: the duplicates and contradictions proposed at
session end, decided by the user."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.commands.base import Command, on_services
from ui.shared.boundary import user_text

if TYPE_CHECKING:
    from core.config import AppConfig
    from ui.shared.services import Services


def _arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="review_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="open proposals with their records")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    approve = actions.add_parser("approve", help="keep one record and hide the others (undoable)")
    approve.add_argument("item", type=user_text)
    approve.add_argument("--keep", type=user_text, help="the record to keep (default: the newest)")
    for action, text in (("dismiss", "leave the records as they are"), ("undo", "revert a decision")):
        actions.add_parser(action, help=text).add_argument("item", type=user_text)
    purge = actions.add_parser("purge", help="remove the text of records you hid, for good")
    purge.add_argument("--yes", action="store_true", help="confirm: this cannot be undone")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.review import review_command

    def use(services: Services) -> int:
        assert services.review is not None and services.memory is not None
        return review_command(args.review_command, services.review, services.memory, services.facts, args)

    return on_services(config, env, use)


COMMAND = Command("review", "duplicates and contradictions proposed at session end", _arguments, _run)
