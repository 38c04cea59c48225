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
    from app import VERSION
    from app.builders.archive import archive_layout, sole_memory
    from memory.collections import COLLECTION_NAMES
    from ui.terminal.backups import list_snapshots, restore_confirmed, show_restored, show_snapshot

    backups = backups_of(config)
    if args.backup_command == "list":
        return list_snapshots(backups, as_json=args.json)
    if args.backup_command == "now":
        with sole_memory(config) as memory:
            snapshot, removed = backups.take(
                config.data_dir, archive_layout(), memory.store, COLLECTION_NAMES, app_version=VERSION
            )
        return show_snapshot(snapshot, removed, backups, as_json=args.json)
    from ui.shared.restore_snapshot import restore_data_dir

    snapshot = backups.find(args.snapshot)
    if not (args.yes or restore_confirmed(config.data_dir, snapshot)):
        return 1
    aside, report = restore_data_dir(
        config.data_dir, snapshot.path, archive_layout(), lambda: sole_memory(config), app_version=VERSION
    )
    return show_restored(snapshot, config.data_dir, aside, report, as_json=args.json)


COMMAND = Command("backup", "local snapshots of your data folder: take, list, restore", _arguments, _run)
