"""Persistence of the knowledge graph as versioned node-link JSON, crash-safe and corruption-tolerant.

File layout (one JSON object): `{"format": "daemon.knowledge_graph", "schema_version": 1, "saved_at": ...,
"graph": <networkx node-link data>}`. A save writes a temp file in the same directory, fsyncs it, keeps the
current (valid) file as `<name>.bak`, then renames the temp file over the main file and fsyncs the directory:
a crash at any point leaves the previous graph loadable. On load, a main file that cannot be parsed is moved
aside to `<name>.corrupt-<timestamp>` with a warning and the graph is recovered from the backup; if both
are unusable both are moved aside and an empty graph is returned. Damaged files are never overwritten or
deleted: a person may want to repair them.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.durable import atomic_write, move_aside
from core.errors import StorageError
from knowledge.graph import KnowledgeGraph

log = logging.getLogger(__name__)

FORMAT = "daemon.knowledge_graph"
SCHEMA_VERSION = 1
GRAPH_FILE = "knowledge_graph.json"


class _NewerSchema(Exception):
    """The file was written by a newer Daemon: not corrupt, just not ours to read (or move)."""


class GraphStore:
    """Loads and saves one `KnowledgeGraph` at `path` (the backup sits beside it as `<name>.bak`)."""

    def __init__(self, path: Path | str, *, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.backup = self.path.with_name(self.path.name + ".bak")
        self._clock = clock
        self._main_verified = False  # the main file was read or written intact by this store
        # When the version loaded (or last saved) was written; None when none could be loaded. What the
        # fact store changed after it is missing from the graph (a crash mid-save, a backup recovered).
        self.saved_at: float | None = None

    # --- load ---------------------------------------------------------------------------------------------
    def load(self) -> KnowledgeGraph:
        """The saved graph; recovered from the backup if the main file is damaged; empty if neither works."""
        if not self.path.exists() and not self.backup.exists():
            return KnowledgeGraph(self._clock)
        damaged: list[Path] = []
        if self.path.exists():
            try:
                graph = self._read(self.path)
                self._main_verified = True
                return graph
            except ValueError as error:
                moved = move_aside(self.path, self._clock())
                damaged.append(moved)
                log.warning("knowledge graph %s is unreadable (%s); moved to %s", self.path, error, moved)
        else:
            log.warning("knowledge graph %s is missing; trying the backup %s", self.path, self.backup)
        if self.backup.exists():
            try:
                graph = self._read(self.backup)
                log.warning("recovered the knowledge graph from the backup %s", self.backup)
                return graph
            except ValueError as error:
                damaged.append(move_aside(self.backup, self._clock()))
                log.warning("knowledge graph backup %s is unreadable too (%s)", self.backup, error)
        kept = ", ".join(str(p) for p in damaged) or "none"
        log.warning("starting with an empty knowledge graph; damaged files kept: %s", kept)
        return KnowledgeGraph(self._clock)

    def _read(self, path: Path) -> KnowledgeGraph:
        """Parse and validate one file; ValueError means damaged, StorageError means unusable as is."""
        try:
            raw = path.read_bytes()
        except OSError as error:
            raise StorageError(f"cannot read the knowledge graph file {path}: {error}") from None
        try:
            graph, self.saved_at = self._decode(raw)
            return graph
        except _NewerSchema as error:
            raise StorageError(
                f"{path} was written by a newer Daemon (schema {error}); upgrade Daemon to open it"
            ) from None
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
            raise ValueError(f"not valid JSON: {error}") from None

    def _decode(self, raw: bytes) -> tuple[KnowledgeGraph, float | None]:
        """The graph a file holds and when it was saved (None if it does not say)."""
        payload = json.loads(raw.decode("utf-8"))
        if not isinstance(payload, dict) or payload.get("format") != FORMAT:
            raise ValueError("not a Daemon knowledge graph file")
        version = payload.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise ValueError(f"bad schema_version {version!r}")
        if version > SCHEMA_VERSION:
            raise _NewerSchema(str(version))
        data = _migrate(payload.get("graph"), version)
        saved_at = payload.get("saved_at")
        if not isinstance(saved_at, int | float) or isinstance(saved_at, bool):
            saved_at = None
        return KnowledgeGraph.from_node_link(data, self._clock), saved_at

    # --- save ---------------------------------------------------------------------------------------------
    def save(self, graph: KnowledgeGraph) -> None:
        """Write the graph atomically; the previous intact version becomes the backup."""
        payload = {
            "format": FORMAT,
            "schema_version": SCHEMA_VERSION,
            "saved_at": (saved_at := self._clock()),
            "graph": graph.to_node_link(),
        }
        try:
            data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        except (TypeError, ValueError) as error:  # an attribute value JSON cannot hold
            raise StorageError(f"cannot serialise the knowledge graph: {error}") from None
        try:
            self._backup_current()
            atomic_write(self.path, data)
        except OSError as error:
            raise StorageError(f"cannot save the knowledge graph to {self.path}: {error}") from None
        self._main_verified = True
        self.saved_at = saved_at
        self._remove_stale_temps()

    def _backup_current(self) -> None:
        """Copy the current main file to the backup, unless it is damaged (then it is moved aside)."""
        if not self.path.exists():
            return
        raw = self.path.read_bytes()
        if not self._main_verified:
            try:
                self._decode(raw)
            except ValueError as error:
                moved = move_aside(self.path, self._clock())
                log.warning("knowledge graph %s was damaged (%s); moved it to %s", self.path, error, moved)
                return
            except _NewerSchema:
                raise StorageError(f"{self.path} was written by a newer Daemon; not overwriting it") from None
        atomic_write(self.backup, raw)

    def _remove_stale_temps(self) -> None:
        """Temp files left by a crash mid-save are partial copies of our own output: safe to remove."""
        for stale in self.path.parent.glob(f".{self.path.name}.*.tmp"):
            with contextlib.suppress(OSError):
                stale.unlink()


def _migrate(data: Any, version: int) -> Any:
    """Bring older node-link payloads up to SCHEMA_VERSION (none yet: version 1 is the first)."""
    if version == SCHEMA_VERSION:
        return data
    raise ValueError(f"no migration from schema {version}")  # pragma: no cover - unreachable until v2


def merge_graph_file(archived: Path, target: Path) -> int:
    """Merge the graph saved at `archived` (an import's copy) into the one saved at `target`; the number of
    entities and relations added."""
    store = GraphStore(target)
    graph = store.load()
    added = graph.absorb(GraphStore(archived).load())
    if added:
        store.save(graph)
    return added
