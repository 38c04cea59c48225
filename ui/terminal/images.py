"""`image add PATH [--caption TEXT] [--tags "Jo,beach"] | list | remove KEY | search QUERY`: visual memory.

`add` stores an image once (the same bytes again are reported as a duplicate, nothing written), captioned
by the user's text, else the vision model (`models.vision`), else its file name and EXIF date, and tagged
with the entities its tags and caption name ("my sister" -> Jo). `search` runs what `recall_image` runs.
With `--json` each prints one object. Bad input (a missing, corrupt, huge or non-image file) is an
`error:` line and exit 2, as everywhere (ui/shared/failures.py).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from core.errors import UserInputError
from memory.visual.retrieval import ImageRecall
from memory.visual.store import StoredImage, VisualMemory
from ui.shared.boundary import for_terminal
from ui.shared.payloads import print_json


def image_command(args: argparse.Namespace, open_visual: Callable[[], VisualMemory], min_score: float) -> int:
    """Run one `image` subcommand (`IMAGE_ACTIONS`) over the visual memory `open_visual()` builds."""
    visual = open_visual()
    visual.open()  # loads the index and repairs it against the records (a crash between two writes)
    return IMAGE_ACTIONS[args.image_command](visual, args, min_score)


def _add(visual: VisualMemory, args: argparse.Namespace) -> int:
    outcome = visual.add(Path(args.path), caption=args.caption, tags=args.tags)
    image = outcome.image
    if args.json:
        print_json({**image.as_json(), "duplicate": outcome.duplicate, "indexed": outcome.indexed})
        return 0
    if outcome.duplicate:
        print(f"already stored as {image.id} ({for_terminal(image.path)}): nothing added")
        return 0
    vector = (
        "with its CLIP vector" if outcome.indexed else "caption and tags only (no CLIP weights configured)"
    )
    print(f"added {image.id}: {for_terminal(image.text)}")
    print(f"  {image.width}x{image.height} {image.media_type}, caption from {image.caption_source}; {vector}")
    return 0


def _list(visual: VisualMemory, *, as_json: bool) -> int:
    images = visual.images()
    if as_json:
        print_json({"images": [i.as_json() for i in images], "count": len(images)})
        return 0
    if not images:
        print("no images stored yet (add one with `image add PATH`)")
    for image in images:
        print(_line(image))
    return 0


def _remove(visual: VisualMemory, key: str, *, as_json: bool) -> int:
    removed = visual.remove(key)
    if removed is None:
        raise UserInputError(f"no stored image matches {key!r}; `image list` shows the ids")
    if as_json:
        print_json({"removed": removed.as_json()})
    else:
        print(f"removed {removed.id} ({for_terminal(removed.path)}); the file itself is untouched")
    return 0


def _search(recall: ImageRecall, query: str, k: int, *, as_json: bool) -> int:
    found = asyncio.run(recall.find_images(query, k))
    if as_json:
        results = [
            {"id": e.id, "score": e.score, "caption": e.text, **_meta(e.metadata)} for e in found.entries
        ]
        print_json({"query": query, "how": found.how, "results": results})
        return 0
    print(f"found {found.how}:" if found.entries else f"no stored image matches ({found.how})")
    for entry in found.entries:
        print(f"  {entry.score:6.3f}  {entry.id}  {for_terminal(entry.text)}")
    return 0


def _meta(meta: Any) -> dict[str, Any]:
    return {key: meta.get(key) for key in ("image_path", "image_hash", "entity_ids", "tags") if key in meta}


def _line(image: StoredImage) -> str:
    day = datetime.fromtimestamp(image.created_at).strftime("%Y-%m-%d") if image.created_at else "?"
    head = f"{image.id}  {day}  {image.width}x{image.height}  {for_terminal(image.path)}"
    return f"{head}\n    {for_terminal(image.text)}"


ImageAction = Callable[[VisualMemory, argparse.Namespace, float], int]  # (visual, args, min CLIP score)
IMAGE_ACTIONS: dict[str, ImageAction] = {
    "add": lambda visual, args, _: _add(visual, args),
    "list": lambda visual, args, _: _list(visual, as_json=args.json),
    "remove": lambda visual, args, _: _remove(visual, args.key, as_json=args.json),
    "search": lambda visual, args, min_score: _search(
        ImageRecall(visual, min_clip_score=min_score), args.query, args.k, as_json=args.json
    ),
}
