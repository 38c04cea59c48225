"""`python main.py trace show TURN_ID [--json]`: where one turn's time went, from the local trace files
(readable beside a running Daemon: the files are only appended to)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.commands.base import Command

if TYPE_CHECKING:
    from core.config import AppConfig


def _arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="trace_command", metavar="ACTION", required=True)
    show = actions.add_parser(
        "show", help="the spans of one turn (its id: `ask --json`'s turn_id, `history`)"
    )
    show.add_argument("turn_id", help="the turn's id")
    show.add_argument("--json", action="store_true", help="print one JSON object")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from core.tracing import TRACE_DIR, TraceLog
    from ui.terminal.traces import show_trace

    log = config.tracing.log(config.data_dir) or TraceLog(
        config.data_dir / TRACE_DIR
    )  # older ones stay readable
    return show_trace(log, args.turn_id, as_json=args.json)


COMMAND = Command("trace", "where a turn's time went: its local trace", _arguments, _run, keeps_data=False)
