"""`python main.py doctor [--json]`: what works, what is missing, and how to fix it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.commands.base import Command

if TYPE_CHECKING:
    from core.config import AppConfig


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from installer.doctor import print_report, run_checks

    return print_report(run_checks(config, env), as_json=args.json)


COMMAND = Command(
    "doctor",
    "check the installation, models, data dir and providers",
    _arguments,
    _run,
    keeps_data=False,  # it reports a data dir that cannot be used rather than failing on it
)
