"""`python main.py export PATH` and `import PATH`: everything the user owns, out to one archive and back."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.base import Command

if TYPE_CHECKING:
    from core.config import AppConfig


def _export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="the archive to write (a .zip; it must not exist yet)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="an archive written by `export`")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _export(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from app import VERSION
    from app.builders.archive import archive_layout, sole_memory
    from memory.archive.writer import export_data
    from memory.collections import COLLECTION_NAMES
    from ui.terminal.data import ProgressLine, show_export

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


EXPORT = Command("export", "write everything Daemon keeps for you to one archive", _export_arguments, _export)
IMPORT = Command("import", "bring an exported archive into this data folder", _import_arguments, _import)
