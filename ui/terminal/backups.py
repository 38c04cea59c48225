"""`backup now|list|restore` in the terminal."""

from __future__ import annotations

import sys
import time
from dataclasses import asdict
from typing import TYPE_CHECKING

from ui.shared.payloads import print_json

if TYPE_CHECKING:
    from core.config import AppConfig
    from memory.archive.backups import Backups, Snapshot


def take_snapshot(config: AppConfig, backups: Backups, *, as_json: bool) -> int:
    """A snapshot now, from a data folder this process holds alone."""
    from app import VERSION
    from app.builders.archive import archive_layout, sole_memory
    from memory.collections import COLLECTION_NAMES

    with sole_memory(config) as memory:
        snapshot, removed = backups.take(
            config.data_dir, archive_layout(), memory.store, COLLECTION_NAMES, app_version=VERSION
        )
    if as_json:
        print_json({**_payload(snapshot), "verified": True, "removed": removed})
        return 0
    print(
        f"Snapshot {snapshot.name} ({snapshot.bytes / 1e6:.1f} MB) in {backups.folder}; read back whole: ok."
    )
    if removed:
        print(f"Removed the oldest beyond the {backups.keep} kept: {', '.join(removed)}")
    return 0


def list_snapshots(backups: Backups, *, as_json: bool) -> int:
    snapshots = backups.snapshots()
    if as_json:
        print_json({"folder": str(backups.folder), "snapshots": [_payload(s) for s in snapshots]})
        return 0
    if not snapshots:
        print(f"No snapshots yet in {backups.folder}; `backup now` takes one.")
    for snapshot in snapshots:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(snapshot.taken_at))
        print(f"{snapshot.name}  {when}  {snapshot.bytes / 1e6:.1f} MB")
    return 0


def restore_snapshot(config: AppConfig, backups: Backups, name: str, *, confirm: bool, as_json: bool) -> int:
    """The data folder becomes the snapshot; the current one is moved aside, never deleted."""
    from app import VERSION
    from app.builders.archive import archive_layout, sole_memory
    from ui.shared.restore_snapshot import restore_data_dir
    from ui.terminal.data import confirmed

    snapshot = backups.find(name)
    warning = (
        f"This replaces the data folder {config.data_dir} by the snapshot {snapshot.name}; "
        "the folder as it is now is moved aside, not deleted."
    )
    if confirm and not confirmed(warning):
        print("nothing restored", file=sys.stderr)
        return 1
    aside, report = restore_data_dir(
        config.data_dir, snapshot.path, archive_layout(), lambda: sole_memory(config), app_version=VERSION
    )
    if as_json:
        print_json(
            {"restored": snapshot.name, "previous_folder": str(aside) if aside else None, **asdict(report)}
        )
        return 0
    print(f"Restored {snapshot.name} into {config.data_dir}.")
    if aside is not None:
        print(f"The folder as it was before is kept in {aside}.")
    return 0


def _payload(snapshot: Snapshot) -> dict[str, object]:
    return {
        "name": snapshot.name,
        "path": str(snapshot.path),
        "bytes": snapshot.bytes,
        "taken_at": snapshot.taken_at,
    }
