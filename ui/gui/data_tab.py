"""The "Your data" tab: what is stored and where it came from, which hosts may be contacted, an export to
download, snapshots taken, listed and restored, and the commands for what needs the data folder to itself.

A restore replaces the folder this running Daemon holds open, so the tab asks for it at the next start
(ui/shared/restore_snapshot.py). Import and purge rewrite the open stores, so they run with Daemon closed
(`python main.py import|purge`); the tab gives the commands rather than stopping the server under the
user's feet.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory.provenance import provenance
from ui.gui.memory_logic import COLLECTION_LABELS, source_label
from ui.gui.widgets import row_picker

if TYPE_CHECKING:
    from core.reachable import Contact
    from memory.service import MemoryService
    from ui.shared.scheduled_snapshots import SnapshotSchedule

STORED_HEADERS = ["what", "records", "from"]
FILE_HEADERS = ["file or folder", "size"]
SNAPSHOT_HEADERS = ["snapshot", "taken", "size"]
EXPORTS = "exports"  # inside the GUI's upload folder: the one place its file route may serve from
CLOSED_ONLY = """**Import and purge** rewrite the stores this running Daemon holds open, so they run with
Daemon closed. Stop it (Ctrl-C where it runs), then:

- bring in an archive or your ChatGPT / Claude export: `python main.py import FILE`
- destroy a session, a fact, a document or everything for good: `python main.py purge --session ID`
  (`--fact ID`, `--document ID`, `--all`); every file of the data folder is then checked for the purged
  words"""


@dataclass
class DataDesk:
    """What the tab works on: the data folder, its live memory store, the hosts, snapshots, the export."""

    data_dir: Path
    memory: MemoryService | None
    contacts: list[Contact]
    snapshots: SnapshotSchedule | None
    export: Callable[[Path], Any] | None  # writes the whole data folder to one archive at the path given
    exports_dir: Path


def stored_rows(desk: DataDesk) -> list[list[Any]]:
    """Records per collection with where they come from, biggest first."""
    counts = desk.memory.stats() if desk.memory is not None else {}
    rows = [
        [COLLECTION_LABELS.get(name, name), count, source_label(provenance(name, {}))]
        for name, count in counts.items()
        if count
    ]
    return sorted(rows, key=lambda row: -row[1])


def file_rows(desk: DataDesk) -> list[list[Any]]:
    """The data folder's files and folders with their sizes, biggest first; a database's write-ahead log
    and index (`-wal`, `-shm`) count with it rather than as files of their own."""
    sizes: dict[str, int] = {}
    for path in sorted(desk.data_dir.iterdir()) if desk.data_dir.is_dir() else []:
        name = path.name.removesuffix("-wal").removesuffix("-shm")
        if path.is_dir():
            name += "/"
        size = (
            path.stat().st_size
            if path.is_file()
            else sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        )
        sizes[name] = sizes.get(name, 0) + size
    return [[name, _megabytes(size)] for name, size in sorted(sizes.items(), key=lambda item: -item[1])]


def hosts_markdown(contacts: list[Contact]) -> str:
    """Which hosts beyond this machine the configuration may contact (as `doctor` lists them)."""
    remote = [c for c in contacts if not c.loopback]
    if not remote:
        return (
            "**Nothing leaves this machine** with the current configuration (`python main.py doctor` checks)."
        )
    lines = ["This configuration may contact:"]
    lines += [f"- `{c.host}`: {c.why}" for c in remote]
    return "\n".join(lines)


def export_now(desk: DataDesk, now: float | None = None) -> Path:
    """A new archive of everything, for the browser to download; the previous download is removed (a copy)."""
    if desk.export is None:
        raise RuntimeError("export is not available in this build")
    desk.exports_dir.mkdir(parents=True, exist_ok=True)
    for old in desk.exports_dir.glob("daemon-export-*.zip"):
        old.unlink(missing_ok=True)
    target = desk.exports_dir / f"daemon-export-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}.zip"
    desk.export(target)
    return target


def snapshot_rows(desk: DataDesk) -> list[list[Any]]:
    if desk.snapshots is None:
        return []
    return [
        [s.name, time.strftime("%Y-%m-%d %H:%M", time.localtime(s.taken_at)), _megabytes(s.bytes)]
        for s in desk.snapshots.backups.snapshots()
    ]


def snapshot_now(desk: DataDesk) -> str:
    if desk.snapshots is None:
        return "Snapshots are off (`backup.every_hours: 0`); `python main.py backup now` takes one."
    desk.snapshots.take()
    newest = desk.snapshots.backups.snapshots()[0]
    return f"Snapshot {newest.name} taken and read back whole, in {desk.snapshots.backups.folder}."


def restore_at_next_start(desk: DataDesk, name: str) -> str:
    """Ask for the snapshot `name` to be restored the next time Daemon starts (it holds the folder now)."""
    from ui.shared.restore_snapshot import ask_restore_on_start

    if desk.snapshots is None or not name.strip():
        return "⚠ pick a snapshot in the table first"
    snapshot = desk.snapshots.backups.find(name.strip())
    ask_restore_on_start(desk.data_dir, snapshot.path)
    return (
        f"Daemon restores **{snapshot.name}** the next time it starts: stop it (Ctrl-C where it runs) and "
        "start it again. The folder as it is then is kept aside, not deleted."
    )


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.2f} MB"


def build_data_tab(gr: Any, desk: DataDesk | None) -> dict[str, Any] | None:
    """The tab's widgets and handlers; a note when this build has no data desk."""
    if desk is None:
        gr.Markdown("Your data is not available in this build.")
        return None
    c: dict[str, Any] = {}
    c["refresh"] = gr.Button("Refresh", elem_id="data-refresh", size="sm")
    gr.Markdown(f"Everything Daemon keeps for you is in `{desk.data_dir}`.")
    c["stored"] = gr.Dataframe(headers=STORED_HEADERS, elem_id="data-stored", interactive=False)
    c["files"] = gr.Dataframe(headers=FILE_HEADERS, elem_id="data-files", interactive=False)
    c["hosts"] = gr.Markdown(hosts_markdown(desk.contacts), elem_id="data-hosts")
    gr.Markdown("### Export")
    with gr.Row(equal_height=True):
        c["export"] = gr.Button("Export everything", elem_id="data-export", scale=1, size="sm")
        c["download"] = gr.File(label="Your archive", elem_id="data-download", interactive=False, scale=3)
    gr.Markdown("### Snapshots")
    c["snapshot"] = gr.Button("Take a snapshot now", elem_id="data-snapshot", size="sm")
    c["snapshot_status"] = gr.Markdown("", elem_id="data-snapshot-status")
    c["snapshots"] = gr.Dataframe(headers=SNAPSHOT_HEADERS, elem_id="data-snapshots", interactive=False)
    with gr.Row(equal_height=True):
        c["picked"] = gr.Textbox(
            label="Snapshot (click a row)", elem_id="data-picked", interactive=False, scale=3
        )
        c["restore"] = gr.Button("Restore at next start", elem_id="data-restore", scale=1)
    c["restore_status"] = gr.Markdown("", elem_id="data-restore-status")
    gr.Markdown(CLOSED_ONLY, elem_id="data-closed-only")

    def reload() -> tuple[list[list[Any]], list[list[Any]], list[list[Any]]]:
        return stored_rows(desk), file_rows(desk), snapshot_rows(desk)

    def take() -> tuple[str, list[list[Any]]]:
        return snapshot_now(desk), snapshot_rows(desk)

    c["refresh"].click(reload, None, [c["stored"], c["files"], c["snapshots"]])
    c["export"].click(lambda: str(export_now(desk)), None, c["download"])
    c["snapshot"].click(take, None, [c["snapshot_status"], c["snapshots"]])
    c["snapshots"].select(row_picker(gr), None, c["picked"])
    c["restore"].click(lambda name: restore_at_next_start(desk, name), c["picked"], c["restore_status"])
    c["reload"] = reload
    c["reload_outputs"] = [c["stored"], c["files"], c["snapshots"]]
    return c
