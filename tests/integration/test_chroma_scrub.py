"""What Chroma keeps on disk after a delete, and the purge's scrub that removes it (real embedded Chroma)."""

from __future__ import annotations

from pathlib import Path

from memory.chroma_scrub import files_holding, scrub_chroma
from memory.chroma_store import ChromaStore
from memory.collections import COLLECTIONS
from memory.embeddings import HashingEmbedder
from memory.vector_store import Metadata, Record

CANARY = "Quillfeather Hall harmonium"


def test_a_deleted_records_text_stays_on_disk_until_the_scrub_removes_it(tmp_path: Path) -> None:
    store_dir = tmp_path / "chroma"
    store = ChromaStore.embedded(store_dir, HashingEmbedder(64))
    store.ensure_collections(COLLECTIONS)
    meta: Metadata = {"created_at": 1.0, "session_id": "s", "turn_id": "t", "seq": 1}
    store.upsert("conversations", [Record("conv_t", f"User: I played the {CANARY}", meta)])
    store.upsert(
        "conversations", [Record("conv_u", "User: something else entirely here", {**meta, "turn_id": "u"})]
    )
    store.delete("conversations", ["conv_t"])
    assert store.get("conversations", ["conv_t"]) == []
    store.close()
    assert files_holding(tmp_path, [CANARY]) == ["chroma/chroma.sqlite3"]  # gone from the API, not the disk

    assert scrub_chroma(store_dir, ["conv_t"])
    assert files_holding(tmp_path, [CANARY]) == []
    reopened = ChromaStore.embedded(store_dir, HashingEmbedder(64))
    reopened.ensure_collections(COLLECTIONS)
    assert [r.id for r in reopened.get("conversations")] == ["conv_u"]  # the store still works, the rest kept
    reopened.close()


def test_a_piece_that_stays_elsewhere_is_not_looked_for(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("I work at Acme Robotics in Boston")
    assert files_holding(tmp_path, ["I work at Acme Robotics in Boston"]) == ["notes.txt"]
    assert (
        files_holding(
            tmp_path, ["I work at Acme Robotics in Boston"], kept=["I work at Acme Robotics in Boston"]
        )
        == []
    )
