"""Graph persistence: round trip, crash during save, corrupt files moved aside and recovered from backup."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from core.errors import StorageError
from knowledge.graph import KnowledgeGraph
from knowledge.graph_store import FORMAT, SCHEMA_VERSION, GraphStore

T0 = 1_700_000_000.0


def edge_set(graph: KnowledgeGraph) -> set[tuple[str, str, str, bool]]:
    return {(e.source, e.relation, e.target, e.superseded) for e in graph.edges(include_superseded=True)}


@pytest.fixture
def store(tmp_path: Path, clock: Callable[[], float]) -> GraphStore:
    return GraphStore(tmp_path / "knowledge_graph.json", clock=clock)


def corrupt_files(store: GraphStore) -> list[Path]:
    return sorted(store.path.parent.glob("*.corrupt-*"))


def test_missing_file_gives_an_empty_graph(store: GraphStore) -> None:
    assert len(store.load()) == 0
    assert not store.path.exists()


def test_save_and_load_round_trip(store: GraphStore, personal_graph: KnowledgeGraph) -> None:
    personal_graph.add_relation("user", "moved to", personal_graph.add_entity("Denver", "place"), at=T0)
    store.save(personal_graph)
    payload = json.loads(store.path.read_text(encoding="utf-8"))
    assert payload["format"] == FORMAT and payload["schema_version"] == SCHEMA_VERSION
    assert {"nodes", "edges"} <= set(payload["graph"])  # networkx node-link data
    loaded = GraphStore(store.path).load()
    assert loaded.entities() == personal_graph.entities()
    assert edge_set(loaded) == edge_set(personal_graph)
    (old,) = [e for e in loaded.edges("user", "lives_in", include_superseded=True) if e.superseded]
    assert old.target == "portland" and old.valid_to == T0


def test_each_save_keeps_the_previous_version_as_backup(
    store: GraphStore, clock: Callable[[], float]
) -> None:
    graph = KnowledgeGraph(clock)
    graph.add_entity("Jo", "person")
    store.save(graph)
    assert not store.backup.exists()
    graph.add_entity("Sam", "person")
    store.save(graph)
    assert {e.id for e in GraphStore(store.backup).load().entities()} == {"jo"}
    assert {e.id for e in store.load().entities()} == {"jo", "sam"}


def test_crash_before_rename_leaves_the_old_graph(
    store: GraphStore, personal_graph: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.save(personal_graph)
    personal_graph.add_entity("Sam", "person")
    real_replace = os.replace

    def crash(src: str, dst: str) -> None:
        if Path(dst) == store.path:
            raise OSError("power cut")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(StorageError):
        store.save(personal_graph)
    monkeypatch.setattr(os, "replace", real_replace)
    loaded = GraphStore(store.path).load()
    assert "sam" not in loaded and "jo" in loaded
    assert not list(store.path.parent.glob(".*.tmp"))  # the failed temp file was cleaned up


def test_a_stray_temp_file_from_a_killed_save_is_ignored(
    store: GraphStore, personal_graph: KnowledgeGraph
) -> None:
    store.save(personal_graph)
    stray = store.path.parent / f".{store.path.name}.abc123.tmp"
    stray.write_text('{"format": "daemon.knowledge_graph", "schema_v')  # written, never renamed
    loaded = GraphStore(store.path).load()
    assert edge_set(loaded) == edge_set(personal_graph)
    store.save(loaded)
    assert not stray.exists()  # our own partial output, removed by the next good save


def test_truncated_main_file_is_moved_aside_and_recovered_from_backup(
    store: GraphStore, personal_graph: KnowledgeGraph, caplog: pytest.LogCaptureFixture
) -> None:
    store.save(personal_graph)
    personal_graph.add_entity("Sam", "person")
    store.save(personal_graph)  # backup = graph without Sam
    damaged = store.path.read_bytes()[: len(store.path.read_bytes()) // 2]
    store.path.write_bytes(damaged)
    with caplog.at_level(logging.WARNING, logger="knowledge.graph_store"):
        loaded = GraphStore(store.path).load()
    assert "jo" in loaded and "sam" not in loaded  # the previous version
    (moved,) = corrupt_files(store)
    assert moved.read_bytes() == damaged  # kept byte for byte
    assert "unreadable" in caplog.text and "backup" in caplog.text


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda text: b"", id="zero-bytes"),
        pytest.param(
            lambda text: text.encode()[:40] + b"\xff\xfe\xc3(" + text.encode()[40:], id="invalid-utf8"
        ),
        # networkx < 3.4 wrote node-link edges under "links": read as no edges, that would silently drop them
        pytest.param(lambda text: text.replace('"edges"', '"links"').encode(), id="links-key"),
    ],
)
def test_a_damaged_file_of_any_kind_is_kept_aside_and_the_backup_loaded_with_every_edge(
    store: GraphStore, personal_graph: KnowledgeGraph, damage: Callable[[str], bytes]
) -> None:
    store.save(personal_graph)
    store.save(personal_graph)  # the backup holds the same graph
    edges = len(personal_graph.edges())
    assert edges > 0
    store.path.write_bytes(damage(store.path.read_text()))
    loaded = GraphStore(store.path).load()
    assert len(loaded.edges()) == edges  # never a graph quietly missing its relations
    assert len(corrupt_files(store)) == 1


def test_saving_after_recovery_never_overwrites_the_damaged_file(
    store: GraphStore, personal_graph: KnowledgeGraph
) -> None:
    store.save(personal_graph)
    store.save(personal_graph)
    store.path.write_text("{not json")
    recovering = GraphStore(store.path)
    graph = recovering.load()
    recovering.save(graph)
    (moved,) = corrupt_files(store)
    assert moved.read_text() == "{not json"
    assert edge_set(GraphStore(store.path).load()) == edge_set(personal_graph)


def test_a_damaged_main_file_is_not_copied_over_a_good_backup(
    store: GraphStore, personal_graph: KnowledgeGraph
) -> None:
    store.save(personal_graph)
    store.save(personal_graph)
    store.path.write_text('{"format": "something else"}')
    GraphStore(store.path).save(KnowledgeGraph())  # a fresh store saving without loading first
    assert edge_set(GraphStore(store.backup).load()) == edge_set(personal_graph)
    assert len(corrupt_files(store)) == 1


def test_both_files_bad_gives_an_empty_graph_and_keeps_both(
    store: GraphStore, personal_graph: KnowledgeGraph, caplog: pytest.LogCaptureFixture
) -> None:
    store.save(personal_graph)
    store.save(personal_graph)
    store.path.write_text("garbage")
    store.backup.write_text(
        '{"format": "daemon.knowledge_graph", "schema_version": 1, "graph": {"nodes": 3}}'
    )
    with caplog.at_level(logging.WARNING, logger="knowledge.graph_store"):
        loaded = GraphStore(store.path).load()
    assert len(loaded) == 0
    assert sorted(p.read_text()[:7] for p in corrupt_files(store)) == ["garbage", '{"forma']
    assert "empty knowledge graph" in caplog.text


def test_missing_main_with_a_backup_recovers(store: GraphStore, personal_graph: KnowledgeGraph) -> None:
    store.save(personal_graph)
    store.save(personal_graph)
    store.path.unlink()
    assert edge_set(GraphStore(store.path).load()) == edge_set(personal_graph)


def test_a_newer_schema_is_refused_not_moved(store: GraphStore) -> None:
    store.path.write_text(json.dumps({"format": FORMAT, "schema_version": SCHEMA_VERSION + 1, "graph": {}}))
    with pytest.raises(StorageError, match="newer"):
        GraphStore(store.path).load()
    assert store.path.exists() and not corrupt_files(store)
