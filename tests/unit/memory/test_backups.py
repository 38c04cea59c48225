"""Snapshots: each read back whole before it counts, the newest `keep` kept, found by name."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from core.errors import UserInputError
from memory.archive.backups import Backups, verify
from memory.archive.layout import ArchiveError
from tests.unit.memory.archive_helpers import COLLECTIONS, LAYOUT, VERSION, data_dir, filled_memory

T0 = 1_796_000_000.0


def test_snapshots_are_kept_newest_first_up_to_keep(tmp_path: Path) -> None:
    data, store = data_dir(tmp_path), filled_memory().store
    backups = Backups(tmp_path / "backups", keep=2)
    taken = [
        backups.take(data, LAYOUT, store, COLLECTIONS, app_version=VERSION, now=T0 + 60 * i) for i in range(3)
    ]
    names = [snapshot.name for snapshot, _ in taken]
    assert taken[2][1] == [names[0]]  # the third snapshot removed the oldest
    assert [s.name for s in backups.snapshots()] == [names[2], names[1]]
    assert (
        backups.find(names[1]).name == names[1] and backups.find(names[1].removesuffix(".zip")).path.is_file()
    )
    with pytest.raises(UserInputError, match="backup list"):
        backups.find("daemon-19990101-000000")


def test_a_snapshot_that_does_not_read_back_whole_is_refused(tmp_path: Path) -> None:
    data, store = data_dir(tmp_path), filled_memory().store
    snapshot, _ = Backups(tmp_path / "backups", keep=3).take(
        data, LAYOUT, store, COLLECTIONS, app_version=VERSION
    )
    verify(snapshot.path, VERSION)
    cut = tmp_path / "cut.zip"
    cut.write_bytes(snapshot.path.read_bytes()[:-200])
    with pytest.raises(ArchiveError):
        verify(cut, VERSION)
    assert zipfile.is_zipfile(snapshot.path)
