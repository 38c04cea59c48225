"""What an image is said to show: its caption (the user's words, a vision model's, else the file name and
EXIF date) and its entity tags (resolved through the knowledge graph: "my sister" -> Jo).

The graph and the vision model are reached through the two small protocols here; the composition root passes
implementations (knowledge/visual_entities.py, core/providers/vision_caption.py), so memory never imports
knowledge. A tag that names no known entity stays a plain tag; no entity is created for it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePath
from typing import Protocol

logger = logging.getLogger(__name__)

USER_CAPTION, VISION_CAPTION, FILE_CAPTION = "user", "vision", "file"
_SEPARATORS = re.compile(r"[_\-.+]+")
_CAMERA_NAME = re.compile(r"^(img|dsc|dscn|pxl|photo|image|screenshot|mvimg)?[\s_-]*\d[\d\s_-]*$", re.I)
MAX_CAPTION_CHARS = 1000


class EntityMention(Protocol):
    """One entity named in a text: which, and where (`text[start:end]`)."""

    @property
    def entity_id(self) -> str: ...

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


class EntityLookup(Protocol):
    """The knowledge graph's entity resolution, as visual memory needs it."""

    def mentions(self, text: str) -> Sequence[EntityMention]:
        """Entities named in `text` (aliases and "my sister"-style references resolved), in text order."""
        ...

    def name(self, entity_id: str) -> str:
        """The entity's display name."""
        ...


class Captioner(Protocol):
    """A vision-capable model that describes an image in a sentence or two."""

    def caption(self, png: bytes, hint: str) -> str:
        """A caption of the PNG image; `hint` is what the user said about it (may be empty). Raises on
        failure (the caller falls back to the file name)."""
        ...


@dataclass(frozen=True)
class Tags:
    """An image's tags: entities of the graph (ids and names) and the plain tags that named none."""

    entity_ids: tuple[str, ...] = ()
    entity_names: tuple[str, ...] = ()
    plain: tuple[str, ...] = ()


def split_tags(raw: str | Sequence[str] | None) -> list[str]:
    """`"Jo, beach"` or `["Jo", "beach"]` -> `["Jo", "beach"]` (trimmed, empty and repeated ones dropped)."""
    items = raw.split(",") if isinstance(raw, str) else list(raw or [])
    return list(dict.fromkeys(" ".join(str(item).split()) for item in items if str(item).strip()))


def resolve_tags(tags: Sequence[str], caption: str, lookup: EntityLookup | None) -> Tags:
    """Each tag resolved to an entity where the graph knows it; entities named in the caption join them."""
    if lookup is None:
        return Tags(plain=tuple(tags))
    ids: dict[str, None] = {}
    plain: list[str] = []
    for tag in tags:
        found = [m.entity_id for m in lookup.mentions(tag)]
        if found:
            ids.update(dict.fromkeys(found))
        else:
            plain.append(tag)
    ids.update(dict.fromkeys(m.entity_id for m in lookup.mentions(caption)))
    names = tuple(lookup.name(entity) for entity in ids)
    return Tags(tuple(ids), names, tuple(plain))


def fallback_caption(path: str, taken_at: datetime | None) -> str:
    """A caption from the file name ("beach_with_jo.jpg" -> "beach with jo"; camera names like
    IMG_2041 say nothing and are left out) and the EXIF date."""
    stem = _SEPARATORS.sub(" ", PurePath(path).stem).strip()
    parts = [] if not stem or _CAMERA_NAME.match(stem) else [stem]
    if taken_at is not None:
        parts.append(f"taken {taken_at:%Y-%m-%d}")
    return ", ".join(parts) or f"image {PurePath(path).name}"


def choose_caption(
    user: str | None, png: bytes | None, path: str, taken_at: datetime | None, captioner: Captioner | None
) -> tuple[str, str]:
    """(caption, where it came from): the user's text, else the vision model's, else the file's."""
    text = " ".join((user or "").split())
    if text:
        return text[:MAX_CAPTION_CHARS], USER_CAPTION
    if captioner is not None and png is not None:
        try:
            made = " ".join(captioner.caption(png, "").split())
        except Exception as error:  # a model that fails costs the caption, never the image
            logger.warning("vision caption failed for %s: %s; using the file name", path, error)
        else:
            if made:
                return made[:MAX_CAPTION_CHARS], VISION_CAPTION
    return fallback_caption(path, taken_at), FILE_CAPTION


def record_text(caption: str, tags: Tags, taken_at: datetime | None) -> str:
    """The text stored (and embedded, and searched by words) for an image: the caption, who and what is
    tagged, and the date it was taken."""
    parts = [caption if caption[-1:] in ".!?" else caption + "."]
    if tags.entity_names:
        parts.append("Shows: " + ", ".join(tags.entity_names) + ".")
    if tags.plain:
        parts.append("Tags: " + ", ".join(tags.plain) + ".")
    if taken_at is not None and f"{taken_at:%Y-%m-%d}" not in caption:
        parts.append(f"Taken {taken_at:%Y-%m-%d}.")
    return " ".join(parts)
