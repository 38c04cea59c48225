"""The command-line reference, generated from the argument parser: `docs/cli.md`.

.venv/bin/python -m app.cli_reference > docs/cli.md     # regenerate after changing a command
.venv/bin/python -m app.cli_reference --check           # exit 1 when docs/cli.md has drifted (make lint)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
HELP_WIDTH = "100"  # argparse wraps help to $COLUMNS: fixed, so the text does not follow the terminal


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parsers of `parser`'s sub-commands, by name, in the order they were added."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


@contextmanager
def _fixed_width() -> Iterator[None]:
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


def help_texts(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Every parser's `--help` output at a fixed width, keyed by its prog ("main.py", "main.py bench
    retrieval", ...), parents before their sub-commands."""
    with _fixed_width():
        texts = {parser.prog: parser.format_help()}
    for child in subcommands(parser).values():
        texts.update(help_texts(child))
    return texts


def reference(parser: argparse.ArgumentParser) -> str:
    """docs/cli.md: every command's help, one section each."""
    lines = [
        "# Command-line reference",
        "",
        "Generated from the argument parser by `python -m app.cli_reference`; `make lint` fails when this",
        "file and the parser disagree. The JSON each `--json` prints is described in docs/architecture.md.",
    ]
    for prog, text in help_texts(parser).items():
        lines += ["", f"## `{prog}`", "", "```text", text.rstrip(), "```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print the reference, or with `--check` compare it with docs/cli.md."""
    from app import VERSION
    from app.commands import COMMANDS
    from app.parser import build_parser

    options = argparse.ArgumentParser(description="Print the CLI reference (docs/cli.md).")
    options.add_argument("--check", action="store_true", help="compare it with docs/cli.md instead")
    text = reference(build_parser(VERSION, COMMANDS))
    if not options.parse_args(argv).check:
        sys.stdout.write(text)
        return 0
    if REFERENCE.is_file() and REFERENCE.read_text(encoding="utf-8") == text:
        return 0
    fix = "python -m app.cli_reference > docs/cli.md"
    print(f"{REFERENCE} does not match the argument parser: run `{fix}`", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
