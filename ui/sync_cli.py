"""`sync obsidian | git`: bring a knowledge source into memory now, with progress on stderr.

The sync runs in a worker thread; Ctrl-C (or SIGTERM) asks it to stop after the item under way, and the
report then says `cancelled: true` (the next run goes on from the ledger). `--json` prints the report as
one object on stdout (knowledge/source_sync.py `SyncReport.as_dict`). No sync runs at start-up: the
commands are explicit (a background job runner can drive the same `run(progress, cancel)` functions).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

from core.config import AppConfig
from core.errors import UserInputError
from knowledge.source_sync import CancelToken, GraphEditor, Progress, ProgressFn, SourceRecord, SyncReport
from knowledge.sync_ledger import LEDGER_FILE, SyncLedger
from memory.service import MemoryService
from memory.vector_store import Record
from ui.cli import print_json

SyncRun = Callable[[ProgressFn, CancelToken], SyncReport]
MemoryFactory = Callable[[], MemoryService]
_REDRAW_S = 0.2


def sync_command(
    source: str,
    config: AppConfig,
    open_memory: MemoryFactory,
    open_graph: Callable[[], GraphEditor],
    *,
    as_json: bool,
) -> int:
    """`sync obsidian|git`: check the source is configured, open memory and the ledger, run the sync."""
    _check_configured(source, config)
    memory = open_memory()
    ledger = SyncLedger(config.data_dir / LEDGER_FILE)
    try:
        sink = MemorySink(memory)
        if source == "obsidian":
            from knowledge.obsidian import ObsidianSync

            vault = config.obsidian
            assert vault.vault is not None
            sync: Any = ObsidianSync(
                vault.vault,
                sink,
                ledger,
                open_graph(),
                exclude=vault.exclude,
                max_note_bytes=vault.max_note_kb * 1024,
            )
        else:
            from knowledge.git_history import GitHistorySync

            sync = GitHistorySync(config.session.git_repos, sink, ledger)
        return run_sync(sync.run, as_json=as_json)
    finally:
        ledger.close()
        memory.close()


def _check_configured(source: str, config: AppConfig) -> None:
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


class ProgressLine:
    """One redrawn line on a terminal (`item done/total`); nothing when stderr is not a terminal."""

    def __init__(self, err: TextIO | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self._err = err or sys.stderr
        self._live = self._err.isatty()
        self._clock = clock
        self._last = 0.0

    def __call__(self, progress: Progress) -> None:
        now = self._clock()
        final = progress.total is not None and progress.done >= progress.total
        if not self._live or (now - self._last < _REDRAW_S and not final):
            return
        self._last = now
        total = "?" if progress.total is None else str(progress.total)
        self._err.write(f"\r\x1b[2K{progress.done}/{total}  {progress.item[:70]}")
        self._err.flush()

    def close(self) -> None:
        """End the line."""
        if self._live:
            self._err.write("\r\x1b[2K")
            self._err.flush()


def run_sync(run: SyncRun, *, as_json: bool, err: TextIO | None = None) -> int:
    """Run one sync with progress and Ctrl-C as a clean stop; print its report."""
    err = err or sys.stderr
    line = ProgressLine(err)
    cancel = threading.Event()
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["report"] = run(line, cancel)
        except BaseException as error:  # re-raised in the main thread, where the CLI reports it
            outcome["error"] = error

    worker = threading.Thread(target=work, name="sync", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except (KeyboardInterrupt, SystemExit):
        cancel.set()
        err.write("\nstopping after the current item…\n")
        worker.join()
    finally:
        line.close()
    if "error" in outcome:
        raise outcome["error"]
    return _print(outcome["report"], as_json)


def _print(report: SyncReport, as_json: bool) -> int:
    if as_json:
        print_json(report.as_dict())
        return 0
    stopped = " (stopped early; run it again to go on)" if report.cancelled else ""
    print(
        f"{report.source}: {report.added} added, {report.updated} updated, {report.unchanged} unchanged, "
        f"{report.deleted} deleted, {report.records} records written{stopped}"
    )
    if report.edges_added or report.edges_ended:
        print(f"graph: {report.edges_added} edges added, {report.edges_ended} ended")
    for item in report.skipped:
        print(f"skipped {item['path']}: {item['reason']}")
    for item in report.errors:
        print(f"error: {item.get('repo') or item.get('path')}: {item['error']}", file=sys.stderr)
    return 1 if report.errors else 0
