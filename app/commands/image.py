"""`python main.py image add|list|remove|search`: the images kept in visual memory (docs/knowledge.md,
"Images"), over the data dir's stores, held like any front end holds them."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.base import Command
from ui.shared.boundary import count_arg, user_text

if TYPE_CHECKING:
    from core.config import AppConfig
    from memory.visual.store import VisualMemory


def _arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="image_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", help="store an image (the same bytes are stored once)")
    add.add_argument("path", type=Path, help="a PNG, JPEG, GIF, WebP, BMP or TIFF file")
    add.add_argument("--caption", type=user_text, help="what it shows (default: a vision model or the name)")
    add.add_argument("--tags", type=user_text, help='comma-separated, e.g. "my sister, beach"')
    add.add_argument("--json", action="store_true")
    listing = actions.add_parser("list", help="the stored images, newest first")
    listing.add_argument("--json", action="store_true")
    remove = actions.add_parser("remove", help="forget one image (the file itself is untouched)")
    remove.add_argument("key", type=user_text, help="its id, SHA-256 (8+ hex digits) or path")
    remove.add_argument("--json", action="store_true")
    search = actions.add_parser("search", help="find images as the recall_image tool does")
    search.add_argument("query", type=user_text)
    search.add_argument("--k", type=count_arg(1, 50), default=5)
    search.add_argument("--json", action="store_true")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from app.builders.memory import build_knowledge, build_memory_service, chroma_dir, open_review
    from app.builders.visual import build_visual
    from memory.embeddings import MiniLMEmbedder
    from memory.lock import DataDirLock
    from ui.terminal.images import image_command

    with ExitStack() as stack:
        stack.callback(DataDirLock(config.data_dir).close)
        review = open_review(config, stack)

        def open_visual() -> VisualMemory:
            embedder = MiniLMEmbedder(threads=1)
            memory = build_memory_service(config, embedder, chroma_dir(config), review.hidden.hidden_ids)
            stack.callback(memory.close)
            captions = args.image_command == "add"  # the vision model captions only what is added
            visual = build_visual(config, memory, build_knowledge(config), env, captions=captions)
            stack.callback(visual.close)
            return visual

        return image_command(args, open_visual, config.visual.min_clip_score)


COMMAND = Command("image", "add, list, remove or search the images you keep in memory", _arguments, _run)
