"""Snapshots while a server runs: one taken at start when none is recent, then only when due."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from memory.archive.backups import Backups
from ui.shared.scheduled_snapshots import SnapshotSchedule, snapshots_scheduled

DAY = 86_400.0


def schedule(tmp_path: Path, taken: list[float], clock: list[float]) -> SnapshotSchedule:
    backups = Backups(tmp_path, keep=3)

    def take() -> object:
        path = tmp_path / f"daemon-{len(taken):08d}-000000.zip"
        path.write_bytes(b"zip")
        os.utime(path, (clock[0], clock[0]))
        taken.append(clock[0])
        return path

    return SnapshotSchedule(backups, take, DAY)


def test_a_snapshot_is_taken_when_none_is_recent_and_then_only_when_due(tmp_path: Path) -> None:
    taken: list[float] = []
    clock = [1_000_000.0]
    plan = schedule(tmp_path, taken, clock)
    assert plan.run_once(clock[0]) and taken == [1_000_000.0]  # none yet: one now
    clock[0] += DAY / 2
    assert not plan.run_once(clock[0])  # the newest is half a day old
    clock[0] += DAY / 2
    assert plan.run_once(clock[0]) and len(taken) == 2


def test_a_failed_snapshot_is_logged_and_the_server_goes_on(tmp_path: Path) -> None:
    def broken() -> object:
        raise OSError("disk full")

    assert not SnapshotSchedule(Backups(tmp_path, keep=3), broken, DAY).run_once(0.0)


def test_the_server_takes_one_at_start_and_stops_the_checks_with_it(tmp_path: Path) -> None:
    taken: list[float] = []
    started = threading.Event()
    plan = schedule(tmp_path, taken, [2_000_000.0])
    original = plan.take

    def take() -> object:
        result = original()
        started.set()
        return result

    plan.take = take
    with snapshots_scheduled(plan, interval_s=3600, clock=lambda: 2_000_000.0):
        assert started.wait(10)
    assert len(taken) == 1
