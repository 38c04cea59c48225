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


def test_the_default_data_folder_is_the_platforms_per_user_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    from core.data_dir import default_data_dir

    monkeypatch.setenv("HOME", "/home/ana")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert default_data_dir("linux") == Path("/home/ana/.local/share/daemon")
    assert default_data_dir("darwin") == Path("/home/ana/Library/Application Support/Daemon")
    monkeypatch.setenv("XDG_DATA_HOME", "/xdg")
    assert default_data_dir("linux") == Path("/xdg/daemon")


def _legacy(root: Path) -> Path:
    legacy = root / "project" / "data" / "user"
    legacy.mkdir(parents=True)
    (legacy / "journal.sqlite3").write_text("turns")
    return legacy


def test_data_left_in_the_project_folder_moves_to_the_per_user_folder_once(tmp_path: Path) -> None:
    from core.data_dir import adopt_legacy_data

    legacy, target = _legacy(tmp_path), tmp_path / "home" / "daemon"
    note = adopt_legacy_data(legacy, target, lambda _: False)
    assert note is not None and note.startswith(f"Moved your Daemon data from {legacy} to {target}")
    assert (target / "journal.sqlite3").read_text() == "turns" and not legacy.exists()
    assert adopt_legacy_data(legacy, target, lambda _: False) is None  # said once: nothing left to move


def test_older_data_is_never_moved_over_newer_nor_while_in_use_and_is_always_named(tmp_path: Path) -> None:
    from core.data_dir import adopt_legacy_data

    legacy, target = _legacy(tmp_path), tmp_path / "home" / "daemon"
    busy = adopt_legacy_data(legacy, target, lambda _: True)
    assert busy is not None and "in use" in busy and (legacy / "journal.sqlite3").exists()
    target.mkdir(parents=True)
    (target / "journal.sqlite3").write_text("newer")
    both = adopt_legacy_data(legacy, target, lambda _: False)
    assert both is not None and f"--data-dir {legacy} export" in both
    assert (target / "journal.sqlite3").read_text() == "newer" and (legacy / "journal.sqlite3").exists()


def test_older_data_moves_into_a_per_user_folder_that_a_start_already_made(tmp_path: Path) -> None:
    from core.data_dir import adopt_legacy_data

    legacy, target = _legacy(tmp_path), tmp_path / "home" / "daemon"
    (legacy / "uploads").mkdir()
    (legacy / "uploads" / "recipe.md").write_text("flour")
    target.mkdir(parents=True)
    (target / "daemon.lock").write_text("")  # what an earlier start of this version left
    assert adopt_legacy_data(legacy, target, lambda _: False) is not None
    assert (target / "journal.sqlite3").read_text() == "turns"
    assert (target / "uploads" / "recipe.md").read_text() == "flour" and not (target / "user").exists()


def test_a_frozen_build_keeps_data_in_the_per_user_folder_never_in_its_unpacked_bundle(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """PyInstaller unpacks a one-file build into a temporary `_MEIPASS` folder it deletes at exit: data
    kept beside the program there would be lost with every run."""
    import sys

    from core.data_dir import default_data_dir

    bundle = tmp_path / "_MEI12345"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    monkeypatch.setattr(sys, "executable", str(bundle / "daemon"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    folder = default_data_dir("linux")
    assert folder == tmp_path / "home" / ".local" / "share" / "daemon"
    assert not folder.is_relative_to(bundle)
