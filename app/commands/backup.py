"""`python main.py backup now|list|restore`: local snapshots of the data folder, and going back to one."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.commands.base import Command

if TYPE_CHECKING:
    from core.config import AppConfig
    from memory.archive.backups import Backups


def _arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="backup_command", metavar="ACTION", required=True)
    now = actions.add_parser("now", help="take a snapshot now (checked by reading it back)")
    now.add_argument("--json", action="store_true", help="print one JSON object")
    listing = actions.add_parser("list", help="the snapshots, newest first")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    back = actions.add_parser(
        "restore", help="make the data folder the snapshot again (the current one is kept)"
    )
    back.add_argument("snapshot", help="a snapshot's name (`backup list`) or the path of an export archive")
    back.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    back.add_argument("--json", action="store_true", help="print one JSON object")


def backups_of(config: AppConfig) -> Backups:
    from memory.archive.backups import Backups

    return Backups(config.backup.folder(config.data_dir), config.backup.keep)


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.terminal.backups import list_snapshots, restore_snapshot, take_snapshot

    backups = backups_of(config)
    if args.backup_command == "now":
        return take_snapshot(config, backups, as_json=args.json)
    if args.backup_command == "list":
        return list_snapshots(backups, as_json=args.json)
    return restore_snapshot(config, backups, args.snapshot, confirm=not args.yes, as_json=args.json)


COMMAND = Command("backup", "local snapshots of your data folder: take, list, restore", _arguments, _run)
