"""The store schema version: ordered migrations applied once, an atomic side file with a backup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import StorageError
from memory.collections import COLLECTION_NAMES
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.schema import SCHEMA_FILE, STORE_MIGRATIONS, Migration, StoreSchema, atomic_write


class Target:
    def __init__(self) -> None:
        self.calls: list[str] = []


def _step(name: str) -> Migration[Target]:
    return Migration(name, lambda target: target.calls.append(name))


STEPS = [_step("001_a"), _step("002_b")]


def _schema(tmp_path: Path, migrations: list[Migration[Target]] = STEPS) -> StoreSchema[Target]:
    return StoreSchema(tmp_path / SCHEMA_FILE, migrations, clock=lambda: 1_700_000_000.0)


def test_migrations_run_once_in_order_and_the_version_is_recorded(tmp_path: Path) -> None:
    target = Target()
    assert _schema(tmp_path).load().version == 0
    assert _schema(tmp_path).migrate(target) == ["001_a", "002_b"]
    assert _schema(tmp_path).migrate(target) == []
    assert target.calls == ["001_a", "002_b"]
    data = json.loads((tmp_path / SCHEMA_FILE).read_text())
    assert data["version"] == 2
    assert [item["name"] for item in data["applied"]] == ["001_a", "002_b"]
    assert json.loads((tmp_path / (SCHEMA_FILE + ".bak")).read_text()) == data
    later = [*STEPS, _step("003_c")]
    assert _schema(tmp_path, later).migrate(target) == ["003_c"]
    assert target.calls == ["001_a", "002_b", "003_c"]
    assert _schema(tmp_path, later).load().version == 3


def test_a_failed_migration_is_not_recorded_and_stops_the_rest(tmp_path: Path) -> None:
    target = Target()

    def boom(_: Target) -> None:
        raise RuntimeError("disk on fire")

    steps = [STEPS[0], Migration("002_boom", boom), _step("003_c")]
    with pytest.raises(RuntimeError):
        _schema(tmp_path, steps).migrate(target)
    assert target.calls == ["001_a"]
    assert _schema(tmp_path, steps).load().names == ["001_a"]
    fixed = [STEPS[0], _step("002_boom"), _step("003_c")]
    assert _schema(tmp_path, fixed).migrate(target) == ["002_boom", "003_c"]


def test_corrupt_file_is_moved_aside_and_recovered_from_backup(tmp_path: Path) -> None:
    _schema(tmp_path).migrate(Target())
    path = tmp_path / SCHEMA_FILE
    path.write_bytes(b'{"format": 1, "vers')  # torn write
    state = _schema(tmp_path).load()
    assert state.names == ["001_a", "002_b"]
    (aside,) = tmp_path.glob(SCHEMA_FILE + ".corrupt-*")
    assert aside.read_bytes() == b'{"format": 1, "vers'  # kept byte for byte, never deleted
    assert json.loads(path.read_text())["version"] == 2  # rewritten from the backup
    target = Target()
    assert _schema(tmp_path).migrate(target) == [] and target.calls == []


def test_missing_main_file_is_recovered_from_backup(tmp_path: Path) -> None:
    _schema(tmp_path).migrate(Target())
    (tmp_path / SCHEMA_FILE).unlink()
    assert _schema(tmp_path).load().version == 2
    assert (tmp_path / SCHEMA_FILE).exists()


def test_corrupt_file_without_a_usable_backup_blocks_with_a_clear_error(tmp_path: Path) -> None:
    _schema(tmp_path).migrate(Target())
    (tmp_path / SCHEMA_FILE).write_text('{"format": 1, "version": 5, "applied": []}')
    (tmp_path / (SCHEMA_FILE + ".bak")).write_text("garbage")
    with pytest.raises(StorageError, match="unreadable.*backup.*kept at .*corrupt-"):
        _schema(tmp_path).load()
    assert len(list(tmp_path.glob(SCHEMA_FILE + ".corrupt-*"))) == 1
    assert (tmp_path / (SCHEMA_FILE + ".bak")).read_text() == "garbage"  # nothing overwritten


def test_a_store_migrated_by_a_newer_daemon_is_refused(tmp_path: Path) -> None:
    _schema(tmp_path, [*STEPS, _step("003_future")]).migrate(Target())
    with pytest.raises(StorageError, match="newer Daemon.*003_future"):
        _schema(tmp_path).migrate(Target())


def test_duplicate_migration_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="share a name"):
        _schema(tmp_path, [STEPS[0], STEPS[0]])


def test_atomic_write_replaces_without_leftovers(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "file.json"
    atomic_write(target, b"one")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in target.parent.iterdir()] == ["file.json"]


def test_store_migrations_create_the_13_collections(tmp_path: Path) -> None:
    store = InMemoryStore(HashingEmbedder())
    schema: StoreSchema[InMemoryStore] = StoreSchema(tmp_path / SCHEMA_FILE, STORE_MIGRATIONS)
    assert schema.migrate(store) == [migration.name for migration in STORE_MIGRATIONS]
    assert sorted(store.counts()) == sorted(COLLECTION_NAMES)
    assert schema.migrate(store) == []
