"""The command-line surface as data: every command's help text, read from the argument parser.

`test_cli_contract.py` compares the live parser with `cli_contract.json`, a snapshot taken before the
composition root was split into one module per command. Regenerate it only for an intended change of the
contract: `PYTHONPATH=. python tests/unit/app/cli_snapshot.py > tests/unit/app/cli_contract.json`.
"""

from __future__ import annotations

import json

from app import VERSION
from app.cli_reference import help_texts
from app.commands import COMMANDS
from app.parser import build_parser


def live_help() -> dict[str, str]:
    """Every command's `--help` as the parser prints it now (at the reference's fixed width)."""
    return help_texts(build_parser(VERSION, COMMANDS))


if __name__ == "__main__":
    print(json.dumps(live_help(), indent=1))
