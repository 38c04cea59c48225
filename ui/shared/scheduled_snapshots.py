"""Snapshots on a schedule while a server (the GUI, `api`) runs: a background thread checks every few
minutes and takes one when the newest is older than `backup.every_hours` (so one is taken soon after
the first start, and a Daemon that runs for days keeps taking them)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from memory.archive.backups import Backups

logger = logging.getLogger(__name__)
CHECK_EVERY_S = 600.0


@dataclass
class SnapshotSchedule:
    """When a snapshot is due, and how one is taken (the composition root binds the live store)."""

    backups: Backups
    take: Callable[[], object]
    every_s: float

    def due(self, now: float) -> bool:
        newest = self.backups.snapshots()
        return not newest or now - newest[0].taken_at >= self.every_s

    def run_once(self, now: float) -> bool:
        """Take a snapshot if one is due; whether one was taken. A failure is logged, tried again later."""
        if not self.due(now):
            return False
        try:
            self.take()
        except Exception:  # noqa: BLE001 - a failed snapshot must not stop the server; the next check retries
            logger.exception("a scheduled snapshot failed; it is tried again at the next check")
            return False
        return True


@contextmanager
def snapshots_scheduled(
    schedule: SnapshotSchedule | None,
    *,
    interval_s: float = CHECK_EVERY_S,
    clock: Callable[[], float] = time.time,
) -> Iterator[None]:
    """While the body serves, take snapshots when due (checked at once, then every `interval_s`)."""
    if schedule is None:
        yield
        return
    stop = threading.Event()

    def loop() -> None:
        while True:
            schedule.run_once(clock())
            if stop.wait(interval_s):
                return

    thread = threading.Thread(target=loop, name="scheduled-snapshots", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()  # a snapshot under way finishes: it is written to .partial and renamed when whole
