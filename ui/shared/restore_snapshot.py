"""Going back to a snapshot: the data folder becomes what the archive holds, the current folder moved
aside whole (never deleted), and put back if the restore fails halfway."""

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
