"""`sync obsidian` on a vault made here: real files, the real memory service, graph store and ledger."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from core.errors import UserInputError
from knowledge.graph_store import GraphStore
from knowledge.jobs import Progress
from knowledge.obsidian import LINKS_TO, OBSIDIAN_NOTES, TAGGED, ObsidianSync, scan_vault
from knowledge.service import KnowledgeService
from knowledge.sync_ledger import SyncLedger
from memory.service import MemoryService
from tests.unit.knowledge.sync_helpers import CountingSink, live, open_memory, records, search_ids

T0 = 1_700_000_000.0

NOTES = {
    "Garden.md": "# Garden\nTomatoes and basil grow here. See [[Compost]] and [[Recipes/Pesto|the pesto]].\n"
    "#gardening #summer\n\n## Pests\nAphids on the roses, ladybirds help. [[Compost#Ratio]]\n",
    "Compost.md": "Compost ratio: three parts brown to one part green. #gardening\n",
    "Recipes/Pesto.md": "Pesto needs basil, pine nuts and parmesan.\n```bash\n#notatag [[NotALink]]\n```\n",
    "Journal.md": "Met Ana at the market. `#inline` is code. [[Garden]]\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for rel, text in NOTES.items():
        write(root, rel, text, T0)
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "workspace.md").write_text("# not a note [[Garden]]")
    (root / ".trash").mkdir()
    (root / ".trash" / "Old.md").write_text("# trashed")
    (root / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return root


def write(root: Path, rel: str, text: str, mtime: float) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (mtime, mtime))


class Parts:
    def __init__(self, vault: Path, tmp_path: Path) -> None:
        self.memory: MemoryService = open_memory()
        self.sink = CountingSink(self.memory)
        self.ledger = SyncLedger(tmp_path / "sync_ledger.sqlite3")
        self.graph_store = GraphStore(tmp_path / "knowledge_graph.json")
        self.knowledge = KnowledgeService(self.graph_store)
        self.clock = [T0 + 100]
        self.sync = ObsidianSync(vault, self.sink, self.ledger, self.knowledge, clock=lambda: self.clock[0])

    def edges(
        self, relation: str, *, source: str | None = None, current: bool = True
    ) -> set[tuple[str, str]]:
        found = self.knowledge.graph.edges(source, relation, include_superseded=not current)
        return {(e.source, e.target) for e in found if not current or not e.superseded}


@pytest.fixture
def parts(vault: Path, tmp_path: Path) -> Parts:
    return Parts(vault, tmp_path)


def test_first_sync_stores_sections_with_title_path_and_tags(parts: Parts) -> None:
    report = parts.sync.run()
    assert (report.added, report.updated, report.deleted) == (4, 0, 0)
    stored = records(parts.memory, OBSIDIAN_NOTES)
    garden = sorted(
        (r for r in stored if r.metadata["file_path"] == "Garden.md"), key=lambda r: r.metadata["chunk_index"]
    )
    assert [r.metadata["section"] for r in garden] == ["Garden", "Garden › Pests"]
    assert garden[0].metadata["title"] == "Garden"
    assert garden[0].metadata["note_tags"] == '["gardening", "summer"]'
    assert garden[1].text.startswith("Garden › Garden › Pests\n")
    assert {r.metadata["file_path"] for r in stored} == set(NOTES)  # no dot-folder note, no attachment
    assert report.details[0]["attachments"] == 1


def test_links_and_tags_become_edges_and_fake_ones_in_code_do_not(parts: Parts) -> None:
    parts.sync.run()
    links = parts.edges(LINKS_TO)
    assert links == {
        ("note:garden", "note:compost"),
        ("note:garden", "note:recipes/pesto"),
        ("note:journal", "note:garden"),
    }
    assert parts.edges(TAGGED) == {
        ("note:garden", "tag:gardening"),
        ("note:garden", "tag:summer"),
        ("note:compost", "tag:gardening"),
    }
    graph = parts.knowledge.graph
    assert "note:notalink" not in graph and "tag:notatag" not in graph and "tag:inline" not in graph
    pesto = graph.entity("note:recipes/pesto")
    assert pesto is not None and pesto.name == "Pesto"
    # the graph is saved: a new service over the same file sees the edges
    assert ("note:garden", "note:compost") in {
        (e.source, e.target) for e in KnowledgeService(parts.graph_store).graph.edges(relation=LINKS_TO)
    }


def test_an_unchanged_vault_reads_nothing_and_a_modified_note_alone_is_resynced(
    parts: Parts, vault: Path
) -> None:
    parts.sync.run()
    parts.sink.reset()
    again = parts.sync.run()
    assert (again.added, again.updated, again.unchanged) == (0, 0, 4)
    assert parts.sink.upserted == []

    write(
        vault,
        "Compost.md",
        "Compost ratio: two parts brown to one green, turned weekly. #gardening #soil\n",
        T0 + 50,
    )
    changed = parts.sync.run()
    assert (changed.added, changed.updated, changed.unchanged) == (0, 1, 3)
    compost_ids = {
        r.id for r in records(parts.memory, OBSIDIAN_NOTES) if r.metadata["file_path"] == "Compost.md"
    }
    assert set(parts.sink.upserted) == compost_ids
    assert ("note:compost", "tag:soil") in parts.edges(TAGGED)


def test_a_touched_note_with_the_same_text_is_not_reembedded(parts: Parts, vault: Path) -> None:
    parts.sync.run()
    parts.sink.reset()
    os.utime(vault / "Journal.md", (T0 + 500, T0 + 500))
    report = parts.sync.run()
    assert (report.updated, report.unchanged) == (0, 4)
    assert parts.sink.upserted == []
    assert parts.ledger.notes()["Journal.md"].mtime == T0 + 500  # the next run does not even open it
    parts.sync.run()
    assert parts.sink.upserted == []


def test_a_deleted_note_is_tombstoned_kept_and_no_longer_found(parts: Parts, vault: Path) -> None:
    parts.sync.run()
    assert search_ids(parts.memory, "ratio brown green compost", OBSIDIAN_NOTES)
    (vault / "Compost.md").unlink()
    parts.clock[0] = T0 + 200
    report = parts.sync.run()
    assert report.deleted == 1
    kept = [r for r in records(parts.memory, OBSIDIAN_NOTES) if r.metadata["file_path"] == "Compost.md"]
    assert kept and all(r.metadata["deleted_at"] == T0 + 200 for r in kept)
    assert "Compost ratio" in kept[0].text  # the text is not lost
    assert not set(search_ids(parts.memory, "ratio brown green compost", OBSIDIAN_NOTES)) & {
        r.id for r in kept
    }
    assert parts.edges(TAGGED, source="note:compost") == set()
    assert ("note:compost", "tag:gardening") in parts.edges(TAGGED, source="note:compost", current=False)
    assert parts.ledger.notes()["Compost.md"].deleted_at == T0 + 200
    assert parts.sync.run().deleted == 0  # tombstoned once


def test_a_restored_note_comes_back_under_its_old_ids(parts: Parts, vault: Path) -> None:
    parts.sync.run()
    ids = {r.id for r in live(parts.memory, OBSIDIAN_NOTES) if r.metadata["file_path"] == "Compost.md"}
    text = (vault / "Compost.md").read_text()
    (vault / "Compost.md").unlink()
    parts.sync.run()
    write(vault, "Compost.md", text, T0 + 300)
    report = parts.sync.run()
    assert report.added == 1
    assert {
        r.id for r in live(parts.memory, OBSIDIAN_NOTES) if r.metadata["file_path"] == "Compost.md"
    } == ids
    assert ("note:compost", "tag:gardening") in parts.edges(TAGGED)


def test_a_renamed_note_is_a_deletion_plus_an_addition(parts: Parts, vault: Path) -> None:
    parts.sync.run()
    (vault / "Journal.md").rename(vault / "Diary.md")
    report = parts.sync.run()
    assert (report.added, report.deleted) == (1, 1)
    paths = {r.metadata["file_path"] for r in live(parts.memory, OBSIDIAN_NOTES)}
    assert "Diary.md" in paths and "Journal.md" not in paths
    assert ("note:diary", "note:garden") in parts.edges(LINKS_TO)
    assert ("note:journal", "note:garden") not in parts.edges(LINKS_TO)


def test_a_dropped_link_ends_its_edge_and_a_shrunk_note_tombstones_its_extra_sections(
    parts: Parts, vault: Path
) -> None:
    parts.sync.run()
    write(vault, "Garden.md", "# Garden\nOnly tomatoes now. [[Compost]] #gardening\n", T0 + 60)
    report = parts.sync.run()
    assert report.edges_ended == 2  # the link to Pesto and the #summer tag
    assert parts.edges(LINKS_TO, source="note:garden") == {("note:garden", "note:compost")}
    garden = [r for r in records(parts.memory, OBSIDIAN_NOTES) if r.metadata["file_path"] == "Garden.md"]
    assert len(garden) == 2
    assert sorted(r.metadata.get("deleted_at") is None for r in garden) == [False, True]


def test_non_utf8_oversized_and_excluded_notes_are_left_out_with_a_note(vault: Path, tmp_path: Path) -> None:
    (vault / "Latin1.md").write_bytes("caf\xe9 au lait".encode("latin-1"))
    (vault / "Big.md").write_text("x" * 5000)
    write(vault, "Templates/Daily.md", "# {{date}}", T0)
    parts = Parts(vault, tmp_path)
    parts.sync = ObsidianSync(
        vault, parts.sink, parts.ledger, parts.knowledge, exclude=("Templates/**",), max_note_bytes=4096
    )
    report = parts.sync.run()
    reasons = {item["path"]: item["reason"] for item in report.skipped}
    assert set(reasons) == {"Latin1.md", "Big.md"}
    assert "not UTF-8" in reasons["Latin1.md"] and "0xe9" in reasons["Latin1.md"]
    assert "larger than 4 KB" in reasons["Big.md"]
    paths = {r.metadata["file_path"] for r in records(parts.memory, OBSIDIAN_NOTES)}
    assert paths == set(NOTES)
    assert [n.rel for n in scan_vault(vault, ("Templates",))[0]] == sorted([*NOTES, "Big.md", "Latin1.md"])


def test_a_cancelled_sync_stores_whole_notes_and_the_next_run_goes_on(parts: Parts) -> None:
    cancel = threading.Event()
    seen: list[Progress] = []

    def progress(step: Progress) -> None:
        seen.append(step)
        if step.items_done == 2:
            cancel.set()

    first = parts.sync.run(progress, cancel)
    assert first.cancelled and first.added == 2
    assert len(parts.ledger.notes()) == 2
    assert seen[-1].items_total == 4 and seen[-1].bytes_done > 0
    done_first = {rid for entry in parts.ledger.notes().values() for rid in entry.record_ids}
    parts.sink.reset()
    rest = parts.sync.run()
    assert (rest.added, rest.unchanged) == (2, 2)
    assert parts.sink.upserted and not set(parts.sink.upserted) & done_first  # no note twice
    assert len({r.metadata["file_path"] for r in live(parts.memory, OBSIDIAN_NOTES)}) == 4


def test_a_missing_vault_is_a_clear_error(tmp_path: Path) -> None:
    parts = Parts(tmp_path / "nowhere", tmp_path)
    with pytest.raises(UserInputError, match="is not a folder"):
        parts.sync.run()
