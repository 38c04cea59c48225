"""Every command's `--help` (its flags, choices and help texts) is the one recorded in cli_contract.json,
and docs/cli.md is generated from the same parser."""

from __future__ import annotations

import json
from pathlib import Path

from cli_snapshot import live_help

from app import VERSION
from app.cli_reference import main as check_reference
from app.cli_reference import reference
from app.commands import COMMANDS
from app.parser import build_parser

RECORDED = json.loads((Path(__file__).parent / "cli_contract.json").read_text())


def test_every_command_and_its_help_is_unchanged() -> None:
    live = live_help()
    assert list(live) == list(RECORDED), "commands were added, removed or reordered"
    changed = [prog for prog in RECORDED if live[prog] != RECORDED[prog]]
    assert not changed, f"--help changed for: {changed}"


def test_the_reference_names_every_command_with_its_help() -> None:
    text = reference(build_parser(VERSION, COMMANDS))
    for prog, help_text in RECORDED.items():
        assert f"## `{prog}`" in text and help_text.rstrip() in text


def test_the_committed_reference_matches_the_parser() -> None:
    assert check_reference(["--check"]) == 0, (
        "docs/cli.md has drifted: python -m app.cli_reference > docs/cli.md"
    )
