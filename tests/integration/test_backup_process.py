"""`backup now|list|restore` as a user runs them: a snapshot checked by reading it back, the data folder
made the snapshot again with the folder as it was kept aside, and no restore under a running Daemon."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.data_cli import cli_holding, main


def said(tmp_path: Path, data: Path) -> list[str]:
    return [t["user"] for t in json.loads(main(tmp_path, data, "history", "--json").stdout)["turns"]]


@pytest.mark.slow
def test_a_snapshot_restored_brings_the_folder_back_and_keeps_the_later_one_aside(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert main(tmp_path, data, "cli", stdin="I live in Boston.\n/quit\n").returncode == 0
    taken = main(tmp_path, data, "backup", "now", "--json")
    assert taken.returncode == 0, taken.stderr
    snapshot = json.loads(taken.stdout)
    assert snapshot["verified"] and Path(snapshot["path"]).parent == tmp_path / "data-backups"
    assert main(tmp_path, data, "cli", stdin="I moved to Chicago.\n/quit\n").returncode == 0
    assert said(tmp_path, data) == ["I live in Boston.", "I moved to Chicago."]

    restored = main(tmp_path, data, "backup", "restore", snapshot["name"], "--yes", "--json")
    assert restored.returncode == 0, restored.stderr
    aside = Path(json.loads(restored.stdout)["previous_folder"])
    assert said(tmp_path, data) == ["I live in Boston."]
    assert said(tmp_path, aside) == ["I live in Boston.", "I moved to Chicago."]  # nothing was deleted

    with cli_holding(tmp_path, data):
        busy = main(tmp_path, data, "backup", "restore", snapshot["name"], "--yes")
        assert busy.returncode != 0 and "in use by another Daemon instance" in busy.stderr
    assert said(tmp_path, data) == ["I live in Boston."]
