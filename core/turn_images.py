"""Images that go with a turn to a vision model: the ones the user attached and the ones retrieval recalled.

The orchestrator puts the images the user attached, or when there are none the ones an `ImageSource`
(memory/visual/attach.py implements it) recalls for the message, on the turn's user message
(`Message.images`). Only a
provider whose profile says `vision` sends them (core/providers/vision.py); the others send the text, in
which retrieval already put each image's caption.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from core.turn_context import TurnContext
from core.types import ImageData, Message


class ImageSource(Protocol):
    """Where a turn's images come from (visual memory)."""

    max_images: int  # at most this many images per turn (attached or recalled)

    async def recalled(self, context: TurnContext, limit: int) -> Sequence[ImageData]:
        """Up to `limit` stored images the turn's message asks to see (none without visual intent)."""
        ...


def with_images(messages: Sequence[Message], images: Sequence[ImageData]) -> list[Message]:
    """`messages` with `images` on the last user message (the turn's own); unchanged when there are none."""
    out = list(messages)
    if not images:
        return out
    for at in range(len(out) - 1, -1, -1):
        if out[at].role == "user":
            out[at] = replace(out[at], images=(*out[at].images, *images))
            break
    return out


async def turn_images(
    source: ImageSource | None, context: TurnContext, attached: Sequence[ImageData]
) -> list[ImageData]:
    """The images for this turn: the attached ones when there are any (the message is about them: "what
    is in this picture?"), at most `source.max_images`; else the ones the message recalls."""
    if source is None:
        return list(attached)
    if attached:
        return list(attached)[: source.max_images]
    return list(await source.recalled(context, source.max_images)) if source.max_images > 0 else []
