"""`python main.py export PATH` and `import PATH`: everything the user owns, out to one archive and back;
`import` also reads another assistant's data export (ChatGPT, Claude)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.base import Command

if TYPE_CHECKING:
    from core.config import AppConfig


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="the archive to write (a .zip; it must not exist yet)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path",
        type=Path,
        help="an archive written by `export`, or a ChatGPT or Claude data export (.zip or .json)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _export(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from app import VERSION
    from app.builders.archive import archive_layout, sole_memory
    from memory.archive.writer import ExportReport, export_data
    from memory.collections import COLLECTION_NAMES
    from ui.attach.client import attach
    from ui.terminal.data import ProgressLine, show_export

    if (running := attach(config.data_dir)) is not None:  # it holds the stores: it writes the archive
        print(f"(through {running.describe()})", file=sys.stderr)
        answer = running.post("export", {"path": str(args.path.resolve())})
        return show_export(ExportReport(**{**answer, "path": Path(answer["path"])}), as_json=args.json)
    with sole_memory(config) as memory:
        report = export_data(
            config.data_dir,
            archive_layout(),
            memory.store,
            COLLECTION_NAMES,
            args.path,
            app_version=VERSION,
            progress=ProgressLine(),
        )
    return show_export(report, as_json=args.json)


def _import(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from memory.chat_exports import is_chat_export

    if is_chat_export(args.path) and not _is_daemon_archive(args.path):
        return _import_chat_history(args, config, env)
    import tempfile

    from app import VERSION
    from app.builders.archive import archive_layout, sole_memory
    from memory.archive.reader import unpack
    from memory.archive.restore import check_fits, restore
    from ui.terminal.data import ProgressLine, show_import

    layout = archive_layout()
    with tempfile.TemporaryDirectory(prefix="daemon-import-") as scratch:
        unpacked = unpack(args.path, Path(scratch), app_version=VERSION)  # checked whole before any write
        check_fits(unpacked, layout)
        with sole_memory(config) as memory:
            report = restore(unpacked, config.data_dir, layout, memory, progress=ProgressLine())
    return show_import(report, as_json=args.json)


def _is_daemon_archive(path: Path) -> bool:
    import zipfile

    from memory.archive.layout import MANIFEST

    try:
        with zipfile.ZipFile(path) as zf:
            return MANIFEST in zf.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def _import_chat_history(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    """A ChatGPT or Claude export: every conversation becomes a past session (read whole first)."""
    import asyncio
    import time

    from app.builders.services import build_services
    from core.clocks import SettableClock
    from memory.chat_exports import read_chat_export
    from ui.shared.history_import import import_history
    from ui.terminal.data import ProgressLine, show_history_import

    source, conversations = read_chat_export(args.path)
    clock = SettableClock(time.time())
    services = build_services(config, env, clock=clock)
    try:
        report = asyncio.run(
            import_history(
                source,
                conversations,
                services.orchestrator,
                clock,
                services.sessions,
                progress=ProgressLine(),
            )
        )
    finally:
        services.close()
    return show_history_import(report, as_json=args.json)


EXPORT = Command("export", "write everything Daemon keeps for you to one archive", _export_arguments, _export)
IMPORT = Command(
    "import",
    "bring an exported archive, or your ChatGPT or Claude history, into this data folder",
    _import_arguments,
    _import,
)
