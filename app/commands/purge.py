"""`python main.py purge --session ID | --fact ID | --document ID | --image ID | --all [--yes]`: destroy
for good, then check the disk."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from app.commands.base import Command
from ui.shared.boundary import session_arg

if TYPE_CHECKING:
    from core.config import AppConfig


def _arguments(parser: argparse.ArgumentParser) -> None:
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--session", type=session_arg, help="a session, with everything learned from it")
    target.add_argument("--fact", type=session_arg, help="one fact, with its history (`facts list --json`)")
    target.add_argument(
        "--document", type=session_arg, help="a document: every version, and its uploaded copy (`docs list`)"
    )
    target.add_argument(
        "--image",
        type=session_arg,
        help="an image: its record and its file in the data folder (`image list`)",
    )
    target.add_argument("--all", action="store_true", help="everything in the data folder")
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from app.builders.archive import purge_stores
    from app.builders.memory import chroma_dir, lexical_file
    from memory.chroma_scrub import scrub_chroma
    from memory.lexical_store import LexicalStore
    from memory.lock import LOCK_NAME, DataDirLock
    from ui.shared.purge import (
        check_on_disk,
        purge_document,
        purge_everything,
        purge_fact,
        purge_image,
        purge_session,
    )
    from ui.terminal.data import confirmed, show_purge, show_purge_all

    what = (
        f"everything in {config.data_dir}"
        if args.all
        else f"session {args.session} with everything learned from it"
        if args.session
        else f"document {args.document} with every version"
        if args.document
        else f"image {args.image} with its file"
        if args.image
        else f"fact {args.fact} with its history"
    )
    if not (args.yes or confirmed(f"This destroys {what}, for good: it cannot be undone or imported back.")):
        print("nothing purged", file=sys.stderr)
        return 1
    if args.all:
        with DataDirLock(config.data_dir):
            removed = purge_everything(config.data_dir, keep=[LOCK_NAME])
        return show_purge_all(config.data_dir, removed, as_json=args.json)
    with DataDirLock(config.data_dir):
        with purge_stores(config) as stores:
            if args.session:
                report = purge_session(stores, args.session)
            elif args.document:
                report = purge_document(stores, args.document, config.data_dir)
            elif args.image:
                report = purge_image(stores, args.image, config.data_dir)
            else:
                report = purge_fact(stores, args.fact)
        store_dir = chroma_dir(config)
        scrub_chroma(store_dir, report.record_ids)  # the store is closed now: its files can be rewritten
        if (lexical := lexical_file(store_dir)).is_file():  # its purged terms' pages, gone too
            index = LexicalStore(lexical)
            index.compact()
            index.close()
        check_on_disk(report, config.data_dir)
    return show_purge(report, as_json=args.json)


COMMAND = Command(
    "purge", "destroy a session, a fact, a document, an image or everything, for good", _arguments, _run
)
