"""Where the embedded model's converted copy lives, and that failing to save it never fails a load."""

from __future__ import annotations

import os
from pathlib import Path

from core.providers.converted_model import cache_root, copy_folder, save_copy


def test_the_cache_folder_follows_daemon_cache_dir_then_xdg_then_home(tmp_path: Path) -> None:
    assert cache_root({"DAEMON_CACHE_DIR": str(tmp_path / "c"), "XDG_CACHE_HOME": "/x"}) == tmp_path / "c"
    assert cache_root({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "daemon"
    assert cache_root({}) == Path.home() / ".cache" / "daemon"


def test_a_changed_model_file_or_converter_gets_a_new_copy(tmp_path: Path) -> None:
    gguf = tmp_path / "Some-Model.Q4_1.gguf"
    gguf.write_bytes(b"x" * 10)
    first = copy_folder(tmp_path, gguf, "4.57.1")
    assert copy_folder(tmp_path, gguf, "4.57.1") == first
    assert copy_folder(tmp_path, gguf, "4.58.0") != first
    os.utime(gguf, ns=(1, 1))
    assert copy_folder(tmp_path, gguf, "4.57.1") != first


def test_a_copy_that_cannot_be_saved_is_reported_not_raised(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert save_copy(object(), object(), blocked / "models" / "m-1-2-tf4") is False
