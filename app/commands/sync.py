"""`python main.py sync obsidian|git [--resume] [--json]`: the Obsidian vault or the repositories' commit
history read into memory incrementally, as a job (`docs jobs` lists it, `docs cancel` stops it), under the
data dir's lock like every writer."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from typing import TYPE_CHECKING

from app.commands.base import Command

if TYPE_CHECKING:
    from core.config import AppConfig


def _arguments(parser: argparse.ArgumentParser) -> None:
    sources = parser.add_subparsers(dest="sync_command", metavar="SOURCE", required=True)
    vault = sources.add_parser("obsidian", help="the vault of obsidian.vault: changed notes, links and tags")
    git = sources.add_parser(
        "git", help="the commit history of session.git_repos (backfill, then new commits)"
    )
    for source in (vault, git):
        source.add_argument("--json", action="store_true", help="print the report as one JSON object")
        source.add_argument("--resume", action="store_true", help="only finish a sync a crash cut short")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from app.builders.memory import build_knowledge, build_memory_service, chroma_dir
    from memory.embeddings import MiniLMEmbedder
    from memory.lock import DataDirLock
    from ui.terminal.sync import sync_command

    with ExitStack() as stack:
        stack.callback(DataDirLock(config.data_dir).close)
        return sync_command(
            args.sync_command,
            config,
            lambda: build_memory_service(config, MiniLMEmbedder(), chroma_dir(config)),
            lambda: build_knowledge(config),
            as_json=args.json,
            resume=args.resume,
        )


COMMAND = Command(
    "sync", "read your Obsidian vault or your repositories' commits into memory", _arguments, _run
)
