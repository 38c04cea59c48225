"""Visual memory's images as a vision model is sent them (`core.turn_images.ImageSource`).

An image goes to the model downscaled (longest side at most `max_side`) and re-encoded as JPEG, smaller
again until it fits `max_kb`: a photo's 10 MB never travel, and the per-turn count is capped too. A turn
recalls images only when its message asks to see something (a visual-intent word: photo, picture, looks
like...): first the ones retrieval already put in the prompt, else what `recall_image` would find.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence
from pathlib import Path

from core.config_visual import VisualConfig
from core.turn_context import TurnContext
from core.types import ImageData
from memory.visual.decode import ImageRejected, decode_image, read_image_bytes
from memory.visual.retrieval import VISUAL_INTENT, ImageRecall
from memory.visual.store import VISUAL, StoredImage, VisualMemory

logger = logging.getLogger(__name__)

_QUALITY = 85
_MIN_SIDE = 128  # never shrink below this to meet the size cap: the model could read nothing


def shrink(path: Path, visual: VisualMemory, max_side: int, max_kb: int, label: str = "") -> ImageData:
    """The image at `path` as JPEG bytes within `max_side` pixels and (down to `_MIN_SIDE`) `max_kb`.
    `ImageRejected` when the file cannot be read within visual memory's limits."""
    from PIL import Image

    data = read_image_bytes(path, visual.limits)
    decode_image(data, visual.limits, path.name)  # the size, bomb and format checks, before decoding
    with Image.open(io.BytesIO(data)) as opened:
        frame = opened.convert("RGBA")
    flat = Image.new("RGB", frame.size, (255, 255, 255))
    flat.paste(frame, mask=frame.getchannel("A"))
    side = max_side
    while True:
        copy = flat.copy()
        copy.thumbnail((side, side))
        buffer = io.BytesIO()
        copy.save(buffer, format="JPEG", quality=_QUALITY)
        if buffer.tell() <= max_kb * 1024 or side <= _MIN_SIDE:
            return ImageData(buffer.getvalue(), "image/jpeg", label or path.name)
        side = max(_MIN_SIDE, int(side * 0.75))


class TurnImages:
    """The `ImageSource` over visual memory: recalled images for a turn, loaded and shrunk."""

    def __init__(
        self, visual: VisualMemory, recall: ImageRecall, *, max_images: int, max_side: int, max_kb: int
    ) -> None:
        self.max_images = max_images
        self.visual = visual
        self.recall = recall
        self._max_side = max_side
        self._max_kb = max_kb

    def load(self, path: Path, label: str = "") -> ImageData:
        """One image file, shrunk for a vision model (`ImageRejected` when it cannot be read)."""
        return shrink(path, self.visual, self._max_side, self._max_kb, label)

    async def recalled(self, context: TurnContext, limit: int) -> Sequence[ImageData]:
        """Up to `limit` images the message asks to see: those retrieval recalled, else `recall_image`'s."""
        if limit <= 0 or not VISUAL_INTENT.search(context.text):
            return []
        ids = [m.id for m in context.memories if m.collection == VISUAL]
        images = await asyncio.to_thread(self.visual.by_ids, ids) if ids else []
        if not images:
            found = await self.recall.find_images(context.text, limit)
            images = await asyncio.to_thread(self.visual.by_ids, [e.id for e in found.entries])
        return await asyncio.to_thread(self._load_all, images[:limit])

    def _load_all(self, images: Sequence[StoredImage]) -> list[ImageData]:
        out = []
        for image in images:
            try:
                out.append(self.load(Path(image.path), f"recalled: {image.id}"))
            except ImageRejected as error:  # the file moved or changed: its caption is in the prompt
                logger.info("image %s not sent to the model: %s", image.id, error)
        return out


def turn_images_for(recall: ImageRecall, config: VisualConfig) -> TurnImages:
    """The turn's image source over `recall`'s visual memory, capped by the `visual.attach_*` settings."""
    return TurnImages(
        recall.visual,
        recall,
        max_images=config.attach_max_images,
        max_side=config.attach_max_side,
        max_kb=config.attach_max_kb,
    )
