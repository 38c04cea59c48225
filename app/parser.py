"""The command-line grammar, made from the list of commands. Only argparse and the argument types of the
input boundary are imported: `python main.py --help` must not load anything heavy."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from app.commands.base import Command


def build_parser(version: str, commands: Sequence[Command]) -> argparse.ArgumentParser:
    """Every command, flag and help text of `python main.py` (the CLI contract of docs/architecture.md)."""
    parser = argparse.ArgumentParser(
        prog="main.py",
        description="Daemon: a local-first personal AI assistant that remembers. "
        "With no command, starts the web GUI on 127.0.0.1:7860.",
    )
    parser.add_argument("--config", type=Path, help="your config file (overrides config.yaml)")
    parser.add_argument("--data-dir", type=Path, help="where Daemon keeps your data (env DAEMON_DATA_DIR)")
    parser.add_argument("--version", action="version", version=f"Daemon {version}")
    named = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in commands:
        command.arguments(named.add_parser(command.name, help=command.help))
    return parser
