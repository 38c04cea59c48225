"""The command-line surface as data: every command's help text, read from the argument parser.

`tests/unit/app/test_cli_contract.py` compares the live parser with `cli_contract.json`, a snapshot taken
before the composition root was split into one module per command. Regenerate it only for an intended change
of the contract: `PYTHONPATH=. python tests/unit/app/cli_snapshot.py > tests/unit/app/cli_contract.json`.
"""

from __future__ import annotations

import argparse
import json
import os

HELP_WIDTH = "100"  # argparse wraps help text to $COLUMNS: fixed, so the snapshot does not follow a terminal


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parsers of `parser`'s sub-commands, by name, in the order they were added."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def help_texts(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Every parser's `--help` output, keyed by its prog ("main.py", "main.py bench retrieval", ...)."""
    texts = {parser.prog: parser.format_help()}
    for child in subcommands(parser).values():
        texts.update(help_texts(child))
    return texts


def snapshot(parser: argparse.ArgumentParser) -> dict[str, str]:
    """`help_texts` at a fixed width."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH
    try:
        return help_texts(parser)
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


if __name__ == "__main__":
    from app import VERSION
    from app.commands import COMMANDS
    from app.parser import build_parser

    print(json.dumps(snapshot(build_parser(VERSION, COMMANDS)), indent=1, sort_keys=False))
