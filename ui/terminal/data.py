"""`export` and `import` in the terminal: a progress line while they run, then what they did."""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, TextIO

from memory.chat_exports import SOURCE_NAMES
from ui.shared.payloads import print_json

if TYPE_CHECKING:
    from pathlib import Path

    from memory.archive.restore import ImportReport
    from memory.archive.writer import ExportReport
    from ui.shared.history_import import HistoryImportReport
    from ui.shared.purge import PurgeReport


class ProgressLine:
    """One line on stderr rewritten in place ("databases 3/7") on a terminal; silent otherwise, so logs
    and pipes get the final report only."""

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self._stream = stream
        self._live = stream.isatty()

    def __call__(self, what: str, done: int, total: int) -> None:
        if not self._live:
            return
        width = 24
        filled = width * done // max(total, 1)
        self._stream.write(f"\r  {what:<12} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done == total:
            self._stream.write("\n")
        self._stream.flush()


def show_export(report: ExportReport, *, as_json: bool) -> int:
    """What `export` wrote."""
    if as_json:
        payload = {**asdict(report), "path": str(report.path)}
        print_json(payload)
        return 0
    turns = report.databases.get("journal.sqlite3", {}).get("turns", 0)
    records = sum(report.collections.values())
    print(f"Exported {turns} turns, {records} memory records and {report.files} files to {report.path}")
    print(f"({report.bytes / 1e6:.1f} MB; `python main.py import {report.path}` brings it back)")
    return 0


def show_import(report: ImportReport, *, as_json: bool) -> int:
    """What `import` added."""
    if as_json:
        print_json(asdict(report))
        return 0
    rows, records = sum(report.rows.values()), sum(report.records.values())
    copied = len(report.files_copied)
    print(f"Imported {rows} database rows and {records} memory records; {copied} files copied.")
    if report.files_merged:
        print(f"Merged with what was here: {', '.join(report.files_merged)}")
    if report.files_kept:
        print(f"Kept this folder's own copy of: {', '.join(report.files_kept)}")
    if report.reembedded:
        print("The archive was made with another embedding model: its memories were embedded again.")
    return 0


def show_history_import(report: HistoryImportReport, *, as_json: bool) -> int:
    """What importing another assistant's history did."""
    if as_json:
        print_json(asdict(report))
        return 0
    name = SOURCE_NAMES.get(report.source, report.source)
    print(
        f"Imported {report.exchanges_added} exchanges from {report.conversations} {name} conversations"
        f" ({report.exchanges_already_here} were already here)."
    )
    print(
        "What you said there is now part of what Daemon remembers; their replies are kept, not learned from."
    )
    if report.messages_cut:
        print(f"{report.messages_cut} very long messages were cut to Daemon's limit.")
    if report.sessions_left:
        print(
            f"{len(report.sessions_left)} conversations are still being summarised; that finishes next time."
        )
    return 0


def confirmed(warning: str) -> bool:
    """Say what is about to happen and ask; only a typed "yes" goes on. Without a terminal to ask on, the
    answer is no (`--yes` says it up front)."""
    if not sys.stdin.isatty():
        print(f"{warning} Add --yes to confirm.", file=sys.stderr)
        return False
    print(warning, file=sys.stderr)
    try:
        return input("Type yes to go on: ").strip().casefold() == "yes"
    except (EOFError, KeyboardInterrupt):
        return False


def show_purge(report: PurgeReport, *, as_json: bool) -> int:
    """What a purge removed, and what the check on disk found (exit 1 if a file still holds the words)."""
    code = 1 if report.still_holding else 0
    if as_json:
        payload = asdict(report)
        for inner in ("words", "kept"):  # neither the purged words nor everything that stays is printed
            payload.pop(inner)
        print_json({**payload, "verified": not report.still_holding})
        return code
    print(
        f"Purged {report.what}: {report.turns} turns, {report.facts} facts, {report.records} memory records,"
        f" {report.relations} graph entries" + (f", {len(report.files)} files." if report.files else ".")
    )
    if report.still_holding:
        print(f"warning: the purged words are still in: {', '.join(report.still_holding)}", file=sys.stderr)
    else:
        print("Checked: no file of the data folder holds the purged words any more.")
    return code


def show_purge_all(data_dir: Path, removed: list[str], *, as_json: bool) -> int:
    if as_json:
        print_json({"removed": removed, "data_dir": str(data_dir)})
        return 0
    print(f"Purged everything in {data_dir} ({len(removed)} files and folders).")
    return 0
