"""Shared pieces of the visual-memory tests: generated images, a real store in a folder, a cheap encoder.

The cheap encoder reads an image's pixels (a 4x4 RGB thumbnail, normalised): deterministic, different
for different images, and fast, so the store's writes, dedupe and repairs are tested without loading CLIP
(the CLIP tests load the real model once per module).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from memory.chroma_store import ChromaStore
from memory.embeddings import HashingEmbedder
from memory.service import MemoryService
from memory.visual.decode import ImageLimits
from memory.visual.encoder import ImageEncoder
from memory.visual.index import FaissImageIndex
from memory.visual.store import VisualMemory
from memory.visual.tagging import EntityLookup
from tests.unit.memory.profile_helpers import committed_profiles

LIMITS = ImageLimits(max_bytes=5_000_000, max_pixels=4_000_000, max_side=4000)
SHAPES = ("ellipse", "rectangle", "triangle")


class PixelEncoder:
    """Images as their 4x4 thumbnail (48-d); it cannot rank by text."""

    name = "pixels-4x4"
    dim = 48
    ranks = False

    def encode_images(self, images: Sequence[Any]) -> np.ndarray:
        rows = [np.asarray(i.convert("RGB").resize((4, 4)), dtype=np.float32).ravel() + 1.0 for i in images]
        out = np.stack(rows)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def encode_text(self, text: str) -> np.ndarray:
        raise AssertionError("a pixel encoder has no text side")


def draw(
    path: Path, colour: tuple[int, int, int], shape: str = "ellipse", size: tuple[int, int] = (96, 64)
) -> Path:
    """A PNG of one coloured shape on white."""
    image = Image.new("RGB", size, (255, 255, 255))
    pen = ImageDraw.Draw(image)
    box = (8, 8, size[0] - 8, size[1] - 8)
    if shape == "ellipse":
        pen.ellipse(box, fill=colour)
    elif shape == "rectangle":
        pen.rectangle(box, fill=colour)
    else:
        pen.polygon([(box[0], box[3]), (box[2], box[3]), ((box[0] + box[2]) // 2, box[1])], fill=colour)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)
    return path


def png_header_only(path: Path, width: int, height: int) -> Path:
    """A valid PNG signature and header claiming `width` x `height`, with one tiny data chunk: what a
    decompression bomb looks like before it is decoded."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\0"))
        + chunk(b"IEND", b"")
    )
    return path


def open_memory(folder: Path) -> MemoryService:
    """A real embedded Chroma store in `folder` with the hashing embedder, opened."""
    service = MemoryService(
        ChromaStore.embedded(folder / "chroma", HashingEmbedder(64)), committed_profiles()
    )
    service.open()
    return service


def open_visual(
    folder: Path,
    *,
    encoder: ImageEncoder | None = None,
    entities: EntityLookup | None = None,
    captioner: Any = None,
) -> VisualMemory:
    """Visual memory over a fresh service on `folder` (the same files as any earlier one: a restart)."""
    encoder = encoder if encoder is not None else PixelEncoder()
    index = FaissImageIndex(folder / "visual_index.faiss", encoder.name, encoder.dim)
    visual = VisualMemory(
        open_memory(folder), LIMITS, index=index, encoder=encoder, entities=entities, captioner=captioner
    )
    visual.open()
    return visual


def close(visual: VisualMemory) -> None:
    visual.close()
    visual.memory.close()


def consistent(visual: VisualMemory) -> bool:
    """Whether the FAISS ids are exactly the records' `index_position`s."""
    assert visual.index is not None
    positions = {int(i.metadata["index_position"]) for i in visual.images()}
    return visual.index.ids() == positions
