"""The memory store's schema version and its migrations, recorded in a JSON side file.

The file (`store_schema.json` in the data dir) lists the migrations already applied, in order; the version
is their count. It is written atomically (temp file in the same directory, fsync, rename, fsync of the
directory) and then copied the same way to `<name>.bak`. A file that cannot be read is moved aside to
`<name>.corrupt-<timestamp>` (never deleted, never overwritten) and the backup is used instead; with no
usable backup the store refuses to start rather than guess which migrations have run.

Migrations are named, ordered and applied once each; each is recorded right after it succeeds. They
should be idempotent anyway: after a crash between a migration and its record, it runs again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from core.durable import atomic_write, move_aside
from core.errors import StorageError
from memory.collections import COLLECTIONS

T = TypeVar("T")
SCHEMA_FILE = "store_schema.json"
FORMAT = 1


@dataclass(frozen=True)
class Migration(Generic[T]):
    """One named step; `apply` receives the migration target (the vector store)."""

    name: str
    apply: Callable[[T], None]


@dataclass
class SchemaState:
    """What the side file records: applied migration names with their times."""

    applied: list[tuple[str, float]] = field(default_factory=list)

    @property
    def version(self) -> int:
        return len(self.applied)

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.applied]


def _create_collections(store: Any) -> None:
    store.ensure_collections(COLLECTIONS)


# The store's migrations, oldest first. Append only: never rename, reorder or remove one.
STORE_MIGRATIONS: tuple[Migration[Any], ...] = (Migration("001_create_13_collections", _create_collections),)


class StoreSchema(Generic[T]):
    """Reads, migrates and records the schema version kept in `path`."""

    def __init__(
        self,
        path: Path | str,
        migrations: Sequence[Migration[T]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.backup = self.path.with_name(self.path.name + ".bak")
        self._migrations = tuple(migrations)
        self._clock = clock
        names = [migration.name for migration in self._migrations]
        if len(names) != len(set(names)):
            raise StorageError("two migrations share a name")

    def load(self) -> SchemaState:
        """The recorded state: fresh if no file exists; recovered from the backup if the file is corrupt."""
        if not self.path.exists() and not self.backup.exists():
            return SchemaState()
        try:
            return self._read(self.path)
        except (OSError, ValueError) as error:
            moved = move_aside(self.path, self._clock()) if self.path.exists() else None
            try:
                state = self._read(self.backup)
            except (OSError, ValueError):
                kept = f"; the damaged file was kept at {moved}" if moved else ""
                raise StorageError(
                    f"the store schema file {self.path} is unreadable ({error}) and its backup {self.backup} "
                    f"is missing or unreadable{kept}. Restore one of them to continue."
                ) from None
            self._write(state)
            return state

    def migrate(self, target: T) -> list[str]:
        """Apply the pending migrations in order, recording each; return the names applied now."""
        state = self.load()
        known = [migration.name for migration in self._migrations]
        unknown = [name for name in state.names if name not in known]
        if unknown:
            raise StorageError(
                f"the memory store in {self.path.parent} was migrated by a newer Daemon ({unknown}); "
                "upgrade Daemon to open it"
            )
        if state.names != known[: state.version]:
            raise StorageError(f"{self.path} records migrations out of order: {state.names}")
        done: list[str] = []
        for migration in self._migrations[state.version :]:
            migration.apply(target)
            state.applied.append((migration.name, self._clock()))
            self._write(state)
            done.append(migration.name)
        return done

    def _read(self, path: Path) -> SchemaState:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"unexpected content in {path}")
        applied = data.get("applied")
        if not isinstance(applied, list):
            raise ValueError(f"'applied' is not a list in {path}")
        out: list[tuple[str, float]] = []
        for item in applied:
            if not (isinstance(item, dict) and isinstance(item.get("name"), str)):
                raise ValueError(f"bad migration entry {item!r} in {path}")
            out.append((item["name"], float(item.get("applied_at", 0.0))))
        if data.get("version") != len(out):
            raise ValueError(f"version {data.get('version')} does not match {len(out)} migrations in {path}")
        return SchemaState(out)

    def _write(self, state: SchemaState) -> None:
        payload = {
            "format": FORMAT,
            "version": state.version,
            "applied": [{"name": name, "applied_at": at} for name, at in state.applied],
        }
        data = (json.dumps(payload, indent=2) + "\n").encode("utf-8")
        try:
            atomic_write(self.path, data)
            atomic_write(self.backup, data)
        except OSError as error:
            raise StorageError(f"cannot write the store schema file {self.path}: {error}") from None
