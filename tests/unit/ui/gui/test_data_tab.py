"""The "Your data" tab's logic: what is stored and from where, sizes, hosts, one export to download."""

from __future__ import annotations

from pathlib import Path

from core.reachable import Contact
from memory.vector_store import Record
from tests.unit.memory.archive_helpers import filled_memory
from ui.gui.data_tab import DataDesk, export_now, file_rows, hosts_markdown, snapshot_now, stored_rows


def desk(tmp_path: Path, exported: list[Path]) -> DataDesk:
    data = tmp_path / "data"
    (data / "uploads").mkdir(parents=True)
    (data / "journal.sqlite3").write_bytes(b"x" * 1_500_000)
    (data / "journal.sqlite3-wal").write_bytes(b"w" * 500_000)
    (data / "uploads" / "recipe.md").write_bytes(b"y" * 500_000)
    memory = filled_memory()
    memory.add("reference_docs", [Record("doc_1", "225 g flour", {"created_at": 1.0, **_doc()})])

    def export(target: Path) -> object:
        target.write_bytes(b"zip")
        exported.append(target)
        return target

    return DataDesk(data, memory, [], None, export, tmp_path / "exports")


def _doc() -> dict[str, str | int | float]:
    return {
        "document_id": "d1",
        "title": "recipe",
        "section": "",
        "chunk_index": 0,
        "total_chunks": 1,
        "content_hash": "h",
        "file_mtime": 1.0,
    }


def test_what_is_stored_says_where_it_came_from_and_how_big_it_is(tmp_path: Path) -> None:
    shown = desk(tmp_path, [])
    rows = stored_rows(shown)
    assert {row[2] for row in rows} >= {"you", "document"} and all(row[1] > 0 for row in rows)
    assert file_rows(shown)[0] == ["journal.sqlite3", "2.00 MB"] and ["uploads/", "0.50 MB"] in file_rows(
        shown
    )


def test_hosts_say_nothing_leaves_unless_a_host_is_configured() -> None:
    assert "Nothing leaves this machine" in hosts_markdown([Contact("127.0.0.1", "ollama")])
    listed = hosts_markdown([Contact("api.openai.com", "the openai provider (gpt-4o-mini)")])
    assert "`api.openai.com`: the openai provider" in listed


def test_one_export_is_kept_for_download_and_snapshots_say_when_they_are_off(tmp_path: Path) -> None:
    exported: list[Path] = []
    shown = desk(tmp_path, exported)
    first = export_now(shown, now=1_796_000_000.0)
    second = export_now(shown, now=1_796_000_060.0)
    assert exported == [first, second] and not first.exists() and second.exists()
    assert "backup now" in snapshot_now(shown)
