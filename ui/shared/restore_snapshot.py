"""Going back to a snapshot: the data folder becomes what the archive holds, the current folder moved
aside whole (never deleted), and put back if the restore fails halfway.

A running Daemon holds the folder, so the GUI cannot restore under itself: it asks for the restore at the
next start (`ask_restore_on_start` leaves a note in the data folder), and the next start of any command
that keeps data does it before opening anything (`restore_pending`)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.archive.layout import ArchiveLayout
    from memory.archive.restore import ImportReport
    from memory.service import MemoryService

OpenMemory = Callable[[], AbstractContextManager["MemoryService"]]  # the data dir's store, under its lock
RESTORE_ON_START = "restore-on-start.json"  # in the data folder: the snapshot the next start restores


def restore_data_dir(
    data_dir: Path, archive: Path, layout: ArchiveLayout, open_memory: OpenMemory, *, app_version: str
) -> tuple[Path | None, ImportReport]:
    """Check the archive whole, move the folder aside (under its lock: no Daemon may be using it), restore
    the archive into a new empty folder. The folder moved aside (None when there was nothing) and what the
    restore added."""
    from core.data_dir import prepare_data_dir
    from memory.archive.reader import unpack
    from memory.archive.restore import check_fits, restore
    from memory.lock import DataDirLock

    with tempfile.TemporaryDirectory(prefix="daemon-restore-") as scratch:
        unpacked = unpack(archive, Path(scratch), app_version=app_version)
        check_fits(unpacked, layout)
        aside = None
        with DataDirLock(data_dir):  # held across the move: the lock file goes aside with the folder
            if any(p.name != "daemon.lock" for p in data_dir.iterdir()):
                aside = data_dir.with_name(f"{data_dir.name}-before-restore-{time.strftime('%Y%m%d-%H%M%S')}")
                os.rename(data_dir, aside)
            prepare_data_dir(data_dir)
        try:
            with open_memory() as memory:
                report = restore(unpacked, data_dir, layout, memory)
        except BaseException:
            if aside is not None:  # the half-made folder is ours alone: the user's one comes back
                shutil.rmtree(data_dir, ignore_errors=True)
                os.rename(aside, data_dir)
            raise
    return aside, report


def ask_restore_on_start(data_dir: Path, snapshot: Path) -> None:
    """Leave the note that makes the next start restore `snapshot` (checked whole then)."""
    import json

    from core.data_dir import write_private

    note = {"snapshot": str(snapshot.resolve()), "asked_at": time.time()}
    write_private(data_dir / RESTORE_ON_START, json.dumps(note) + "\n")


def restore_pending(
    data_dir: Path, layout: ArchiveLayout, open_memory: OpenMemory, *, app_version: str
) -> str | None:
    """The restore the GUI asked for, done now (before anything opens the folder): what to tell the user,
    or None when none was asked. A restore that fails leaves the folder as it was and its note renamed
    `.failed`, so it is not tried at every start."""
    import json

    note = data_dir / RESTORE_ON_START
    if not note.is_file():
        return None
    try:
        snapshot = Path(json.loads(note.read_text(encoding="utf-8"))["snapshot"])
        aside, _ = restore_data_dir(data_dir, snapshot, layout, open_memory, app_version=app_version)
    except Exception as error:  # noqa: BLE001 - the start goes on with the folder as it was
        note.replace(note.with_suffix(".failed.json"))
        return f"the restore asked for in the GUI did not happen ({error}); the data folder is as it was"
    kept = f"; the folder as it was is kept in {aside}" if aside else ""
    return f"Restored the snapshot {snapshot.name} into {data_dir}, as asked in the GUI{kept}."
