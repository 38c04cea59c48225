"""Every command's `--help` (its flags, choices and help texts) is the one recorded in cli_contract.json."""

from __future__ import annotations

import json
from pathlib import Path

from cli_snapshot import snapshot

from app import VERSION
from app.commands import COMMANDS
from app.parser import build_parser

RECORDED = json.loads((Path(__file__).parent / "cli_contract.json").read_text())


def test_every_command_and_its_help_is_unchanged() -> None:
    live = snapshot(build_parser(VERSION, COMMANDS))
    assert list(live) == list(RECORDED), "commands were added, removed or reordered"
    changed = [prog for prog in RECORDED if live[prog] != RECORDED[prog]]
    assert not changed, f"--help changed for: {changed}"
