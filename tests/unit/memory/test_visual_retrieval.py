"""Image retrieval when the encoder can rank (CLIP with real weights): the text vector orders the images,
weak matches are left out, and an entity's own images come first, in the order the text vector gives.

A colour encoder stands in for CLIP: an image is its mean colour, a text the colour words it names, so
which image should win is known (the real model with real weights cannot ship in tests)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memory.visual.retrieval import NO_CLIP, ImageRecall
from memory.visual.store import VisualMemory
from tests.unit.memory.visual_helpers import close, draw, open_visual

COLOURS = {"red": (1.0, 0.0, 0.0), "green": (0.0, 1.0, 0.0), "blue": (0.0, 0.0, 1.0)}


class ColourEncoder:
    """Images as their mean colour (white removed), texts as the colours they name."""

    name = "colours"
    dim = 3
    ranks = True

    def encode_images(self, images: Sequence[Any]) -> np.ndarray:
        out = []
        for image in images:
            pixels = np.asarray(image.convert("RGB"), dtype=np.float32).reshape(-1, 3)
            ink = pixels[pixels.min(axis=1) < 250]  # the shape, not the white paper around it
            out.append(ink.mean(axis=0) + 1.0)
        rows = np.stack(out)
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)

    def encode_text(self, text: str) -> np.ndarray:
        vector = np.array([0.01, 0.01, 0.01], dtype=np.float32)
        for word in re.findall(r"[a-z]+", text.lower()):
            vector += np.asarray(COLOURS.get(word, (0.0, 0.0, 0.0)), dtype=np.float32)
        return vector / np.linalg.norm(vector)


@dataclass(frozen=True)
class _Mention:
    entity_id: str
    start: int
    end: int


class NameLookup:
    """Entities by exact name (the graph's resolution is tested with the real graph in integration)."""

    def __init__(self, *names: str) -> None:
        self._names = {n.lower(): n for n in names}

    def mentions(self, text: str) -> list[_Mention]:
        found = [(m.start(), m.end(), m.group().lower()) for m in re.finditer(r"\w+", text)]
        return [_Mention(word, start, end) for start, end, word in found if word in self._names]

    def name(self, entity_id: str) -> str:
        return self._names[entity_id]


@pytest.fixture
def album(tmp_path: Path) -> Iterator[VisualMemory]:
    visual = open_visual(tmp_path / "data", encoder=ColourEncoder(), entities=NameLookup("Jo", "Sam"))
    visual.add(draw(tmp_path / "jo_red.png", (255, 0, 0)), caption="Jo in a coat", tags="Jo")
    visual.add(draw(tmp_path / "jo_blue.png", (0, 0, 255), "rectangle"), caption="Jo at sea", tags="Jo")
    visual.add(draw(tmp_path / "sam_green.png", (0, 255, 0), "triangle"), caption="Sam's garden", tags="Sam")
    yield visual
    close(visual)


async def test_the_text_vector_ranks_the_images_and_weak_matches_are_left_out(album: VisualMemory) -> None:
    found = await ImageRecall(album, min_clip_score=0.5).find_images("something green", 3)
    assert [e.metadata["image_path"].rsplit("/", 1)[1] for e in found.entries] == ["sam_green.png"]
    assert found.how == "ranked by CLIP image similarity" and found.entries[0].score > 0.9


async def test_an_entitys_images_come_first_in_the_order_the_text_vector_gives(album: VisualMemory) -> None:
    found = await ImageRecall(album, min_clip_score=0.5).find_images("the red photo of Jo", 3)
    names = [e.metadata["image_path"].rsplit("/", 1)[1] for e in found.entries]
    # red was added first: newest-first alone would put blue first
    assert names[:2] == ["jo_red.png", "jo_blue.png"] and "sam_green.png" not in names
    assert found.how.startswith("images tagged with Jo first") and NO_CLIP not in found.how


async def test_an_encoder_that_cannot_rank_is_never_asked_to(tmp_path: Path) -> None:
    encoder = ColourEncoder()
    encoder.ranks = False  # what random weights report
    visual = open_visual(tmp_path / "data", encoder=encoder)
    try:
        visual.add(draw(tmp_path / "red.png", (255, 0, 0)), caption="a kite")
        assert visual.clip_ranked("red", 3) == []
        found = await ImageRecall(visual).find_images("a kite", 3)
    finally:
        close(visual)
    assert found.how == NO_CLIP and found.entries[0].text == "a kite."
