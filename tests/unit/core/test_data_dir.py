"""The data dir: a clear error when it cannot be a folder, and private (0700, files 0600) once prepared."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from core.data_dir import loose_modes, prepare_data_dir
from core.errors import ConfigError


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_data_dir_is_private(tmp_path: Path) -> None:
    data = tmp_path / "new" / "data"
    prepare_data_dir(data)
    assert data.is_dir() and mode(data) == 0o700 and loose_modes(data) == []


def test_what_an_older_version_left_readable_is_tightened(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "chroma" / "index").mkdir(parents=True)
    for folder in (data, data / "chroma", data / "chroma" / "index"):
        os.chmod(folder, 0o755)
    files = [
        data / "journal.sqlite3",
        data / "chroma" / "chroma.sqlite3",
        data / "chroma" / "index" / "x.bin",
    ]
    for file in files:
        file.write_bytes(b"private")
        os.chmod(file, 0o644)
    os.chmod(files[0], 0o755)  # an executable bit stays the owner's
    assert set(loose_modes(data)) == {data, data / "chroma", data / "chroma" / "index", *files}
    prepare_data_dir(data)
    assert loose_modes(data) == []
    assert mode(data) == mode(data / "chroma") == 0o700
    assert mode(files[0]) == 0o700 and mode(files[1]) == mode(files[2]) == 0o600


def test_a_data_dir_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("x")
    with pytest.raises(ConfigError, match="is a file, not a directory"):
        prepare_data_dir(blocker)
    with pytest.raises(ConfigError, match="a part of that path is a file"):
        prepare_data_dir(blocker / "data")


def test_a_data_dir_on_a_read_only_mount_names_the_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_only(self: Path, *args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "mkdir", read_only)
    with pytest.raises(ConfigError, match="Read-only file system; choose a writable place with --data-dir"):
        prepare_data_dir(tmp_path / "mnt" / "data")
