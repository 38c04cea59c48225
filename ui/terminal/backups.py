"""`backup now|list|restore` in the terminal: what they did, and the question before a restore."""

from __future__ import annotations

import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from ui.shared.payloads import print_json

if TYPE_CHECKING:
    from memory.archive.backups import Backups, Snapshot
    from memory.archive.restore import ImportReport


def show_snapshot(snapshot: Snapshot, removed: list[str], backups: Backups, *, as_json: bool) -> int:
    """A snapshot just taken (and read back whole), and the old ones it made room by."""
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


def restore_confirmed(data_dir: Path, snapshot: Snapshot) -> bool:
    """Ask before the data folder is replaced (it is moved aside, never deleted)."""
    from ui.terminal.data import confirmed

    warning = (
        f"This replaces the data folder {data_dir} by the snapshot {snapshot.name}; "
        "the folder as it is now is moved aside, not deleted."
    )
    if confirmed(warning):
        return True
    print("nothing restored", file=sys.stderr)
    return False


def show_restored(
    snapshot: Snapshot, data_dir: Path, aside: Path | None, report: ImportReport, *, as_json: bool
) -> int:
    if as_json:
        print_json(
            {"restored": snapshot.name, "previous_folder": str(aside) if aside else None, **asdict(report)}
        )
        return 0
    print(f"Restored {snapshot.name} into {data_dir}.")
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
