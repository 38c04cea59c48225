"""The knowledge sources as the front ends start them: a source's sync (the Obsidian vault or the git
repositories of the config) over the memory store and the job ledger's sync tables, and a clear error when
the source is not configured. The terminal's `sync` and the GUI's "Sync now" build it the same way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.config import AppConfig
from core.errors import UserInputError
from knowledge.jobs import JobLedger
from knowledge.source_sync import GraphEditor, SourceRecord, SyncSource
from knowledge.sync_ledger import LEDGER_FILE, SyncLedger
from memory.service import MemoryService
from memory.vector_store import Record


def open_sync_ledger(config: AppConfig, jobs: JobLedger) -> SyncLedger:
    """The sync tables in the data dir's job ledger (an older separate `sync_ledger.sqlite3` imported)."""
    return SyncLedger(jobs, legacy=config.data_dir / LEDGER_FILE)


def build_source(
    source: str, config: AppConfig, sink: MemorySink, ledger: SyncLedger, graph: GraphEditor | None
) -> SyncSource:
    """The configured vault's or repositories' sync."""
    if source == "obsidian":
        from knowledge.obsidian import ObsidianSync

        vault = config.obsidian
        assert vault.vault is not None
        return ObsidianSync(
            vault.vault, sink, ledger, graph, exclude=vault.exclude, max_note_bytes=vault.max_note_kb * 1024
        )
    from knowledge.git_history import GitHistorySync

    return GitHistorySync(config.session.git_repos, sink, ledger)


def check_configured(source: str, config: AppConfig) -> None:
    """A clear error when the source has no configuration (or its vault is not a folder)."""
    if source == "obsidian":
        vault = config.obsidian.vault
        if vault is None:
            raise UserInputError("no Obsidian vault configured: set obsidian.vault in your config file")
        if not vault.expanduser().is_dir():
            raise UserInputError(f"the Obsidian vault {vault} is not a folder (obsidian.vault)")
    elif not config.session.git_repos:
        raise UserInputError("no repositories configured: list them in session.git_repos in your config file")


class MemorySink:
    """`knowledge.source_sync.RecordSink` over the memory service (embeds, writes the store and the index)."""

    def __init__(self, service: MemoryService) -> None:
        self._service = service

    def upsert(self, collection: str, records: Sequence[SourceRecord]) -> None:
        """Store or replace the records by id."""
        if records:
            self._service.add(collection, [Record(r.id, r.text, dict(r.metadata)) for r in records])

    def mark(self, collection: str, updates: Mapping[str, Mapping[str, Any]]) -> int:
        """Merge metadata changes (a tombstone) into stored records."""
        return self._service.update_metadata(collection, updates) if updates else 0
