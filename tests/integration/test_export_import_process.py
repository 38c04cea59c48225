"""`export` and `import` as a user runs them: a conversation exported, imported into a fresh data folder,
and read back the same way; imported again, nothing doubles; a damaged archive changes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.integration.data_cli import cli_holding, digest, main

SAID = "I live in Boston and I work at Acme Robotics.\nMy sister Jo lives in Denver.\n/quit\n"
READS = (
    ("history", "--json"),
    ("facts", "list", "--json"),
    ("memory", "stats", "--json"),
)


def read_back(tmp_path: Path, data: Path) -> list[object]:
    """What the read commands print of a data folder, and the ids a search finds, in order."""
    views: list[object] = [json.loads(main(tmp_path, data, *args).stdout) for args in READS]
    found = json.loads(main(tmp_path, data, "memory", "search", "where does my sister live", "--json").stdout)
    views.append([(r["id"], r["collection"], r["text"]) for r in found["results"]])
    return views


@pytest.mark.slow
def test_an_exported_memory_imported_into_a_fresh_folder_reads_back_the_same(tmp_path: Path) -> None:
    mine, fresh, archive = tmp_path / "mine", tmp_path / "fresh", tmp_path / "everything.zip"
    assert main(tmp_path, mine, "cli", stdin=SAID).returncode == 0
    exported = main(tmp_path, mine, "export", str(archive), "--json")
    assert exported.returncode == 0, exported.stderr
    counts = json.loads(exported.stdout)
    assert (
        counts["databases"]["journal.sqlite3"]["turns"] == 2 and counts["collections"]["conversations"] == 2
    )

    imported = main(tmp_path, fresh, "import", str(archive), "--json")
    assert imported.returncode == 0, imported.stderr
    assert json.loads(imported.stdout)["records"]["conversations"] == 2
    before = read_back(tmp_path, mine)
    assert before == read_back(tmp_path, fresh)
    assert any(f["object"] == "Denver" for f in before[1]["facts"])  # type: ignore[index]

    again = json.loads(main(tmp_path, fresh, "import", str(archive), "--json").stdout)
    assert set(again["rows"].values()) == {0} and set(again["records"].values()) == {0}
    stats = json.loads(main(tmp_path, fresh, "memory", "stats", "--json").stdout)
    assert stats == before[2]  # nothing doubled

    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(archive.read_bytes()[:-4000])
    untouched = digest(fresh)
    refused = main(tmp_path, fresh, "import", str(damaged))
    assert refused.returncode != 0 and "error:" in refused.stderr and "Traceback" not in refused.stderr
    assert digest(fresh) == untouched


@pytest.mark.slow
def test_export_will_not_overwrite_a_file_or_run_beside_a_daemon_that_owns_the_folder(tmp_path: Path) -> None:
    data, archive = tmp_path / "data", tmp_path / "taken.zip"
    archive.write_text("my own file")
    refused = main(tmp_path, data, "export", str(archive))
    assert refused.returncode != 0 and "already exists" in refused.stderr
    assert archive.read_text() == "my own file"

    with cli_holding(tmp_path, data):
        busy = main(tmp_path, data, "export", str(tmp_path / "new.zip"))
        assert busy.returncode != 0 and "in use by another Daemon instance" in busy.stderr
        assert not (tmp_path / "new.zip").exists() and not (tmp_path / "new.zip.partial").exists()


@pytest.mark.slow
def test_export_beside_a_running_gui_is_written_by_it_from_its_open_stores(tmp_path: Path) -> None:
    from tests.browser.gui_page import served_gui

    data, archive = tmp_path / "data", tmp_path / "while-running.zip"
    assert main(tmp_path, data, "cli", stdin=SAID).returncode == 0
    env = {**os.environ, "DAEMON_DATA_DIR": str(data)}
    with served_gui(["--config", str(tmp_path / "echo.yaml")], env, tmp_path):
        exported = main(tmp_path, data, "export", str(archive), "--json")
        assert exported.returncode == 0, exported.stderr
        assert "(through the running Daemon (gui" in exported.stderr
        assert json.loads(exported.stdout)["databases"]["journal.sqlite3"]["turns"] == 2
        again = main(tmp_path, data, "export", str(archive))
        assert again.returncode != 0 and "already exists" in again.stderr  # the Daemon's refusal, as here
    fresh = tmp_path / "fresh"
    assert main(tmp_path, fresh, "import", str(archive)).returncode == 0
    turns = [json.loads(main(tmp_path, d, "history", "--json").stdout) for d in (fresh, data)]
    assert turns[0] == turns[1]  # the same turns
