"""Finding images for a message: by the entity it names first, then by CLIP, else by caption.

1. **Entities.** The message's entities are resolved through the graph ("my sister" -> Jo). When several
   are named and the message has a visual-intent word (photo, picture, image, pic, selfie, looked like...),
   the entity nearest those words is the one whose images are meant ("the photo of Jo that Sam sent" ->
   Jo); without such a word every named entity counts, in order. Images tagged with it come first.
2. **CLIP**, when the encoder's weights are real (`ranks`): the message's text vector against the image
   vectors, kept above `min_clip_score`; it also orders the entity's images.
3. **Captions** otherwise (no weights configured: random or no vectors cannot rank): the normal memory
   search (MiniLM + BM25) over the captions and tags of `visual_memories`.

`ImageRecall` is the `core.ports.ImageFinder` the `recall_image` tool reads.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence

from core.ports import ImageMatches, MemoryEntry
from memory.visual.store import VISUAL, StoredImage, VisualMemory
from memory.visual.tagging import EntityMention

VISUAL_INTENT = re.compile(
    r"\b(photo(graph)?s?|pictures?|pics?|images?|selfies?|snap(shot)?s?|screenshots?|"
    r"look(s|ed)? like|what \w+ look(s|ed)?)\b",
    re.IGNORECASE,
)
NO_CLIP = "by caption and tags only (no CLIP weights configured: visual.weights)"


def intent_spans(text: str) -> list[tuple[int, int]]:
    """Where the visual-intent words are in `text`."""
    return [match.span() for match in VISUAL_INTENT.finditer(text)]


def target_entities(text: str, mentions: Sequence[EntityMention]) -> list[str]:
    """The entity ids whose images `text` asks for: the one nearest a visual-intent word when several are
    named and there is such a word, else every named one in order of mention."""
    ids = list(dict.fromkeys(m.entity_id for m in mentions))
    spans = intent_spans(text)
    if len(ids) <= 1 or not spans:
        return ids

    def distance(mention: EntityMention) -> int:
        return min(max(start - mention.end, mention.start - end, 0) for start, end in spans)

    nearest = min(mentions, key=lambda m: (distance(m), m.start))
    return [nearest.entity_id]


class ImageRecall:
    """`core.ports.ImageFinder` over visual memory: entity first, then CLIP, else captions."""

    def __init__(self, visual: VisualMemory, *, min_clip_score: float = 0.2) -> None:
        self._visual = visual
        self._min_score = min_clip_score

    @property
    def visual(self) -> VisualMemory:
        """The visual memory searched."""
        return self._visual

    @property
    def ranks(self) -> bool:
        """Whether CLIP similarity orders results (real weights configured)."""
        encoder = self._visual.encoder
        return encoder is not None and encoder.ranks

    async def find_images(self, query: str, limit: int) -> ImageMatches:
        """Up to `limit` images for `query`, best first, and a line saying how they were found."""
        limit = max(1, limit)
        await asyncio.to_thread(self._visual.open)
        entities = await asyncio.to_thread(self._entities, query)
        tagged = await asyncio.to_thread(self._visual.by_entities, entities) if entities else []
        if self.ranks:
            scored = await asyncio.to_thread(self._visual.clip_ranked, query, max(limit, len(tagged)) * 4)
            others = [(image, score) for image, score in scored if score >= self._min_score]
            order = {image.id: score for image, score in scored}
        else:
            others = await self._visual.caption_search(query, max(limit, 10))
            order = {image.id: score for image, score in others}
        tagged.sort(key=lambda image: -order.get(image.id, -2.0))  # stable: newest first among equals
        found = _merge([(image, order.get(image.id, 1.0)) for image in tagged], others, limit)
        entries = tuple(_entry(image, score) for image, score in found)
        return ImageMatches(entries, self._how(entities, tagged))

    def _entities(self, query: str) -> list[str]:
        lookup = self._visual.entities
        return target_entities(query, lookup.mentions(query)) if lookup is not None else []

    def _how(self, entities: Sequence[str], tagged: Sequence[StoredImage]) -> str:
        lookup = self._visual.entities
        parts = []
        if tagged and lookup is not None:
            parts.append(f"images tagged with {', '.join(lookup.name(e) for e in entities)} first")
        parts.append("ranked by CLIP image similarity" if self.ranks else NO_CLIP)
        return "; ".join(parts)


def _merge(
    first: Sequence[tuple[StoredImage, float]], then: Sequence[tuple[StoredImage, float]], limit: int
) -> list[tuple[StoredImage, float]]:
    seen: set[str] = set()
    out = []
    for image, score in [*first, *then]:
        if image.id not in seen:
            seen.add(image.id)
            out.append((image, score))
    return out[:limit]


def _entry(image: StoredImage, score: float) -> MemoryEntry:
    created = image.created_at or None
    return MemoryEntry(image.id, VISUAL, image.text, created, score, metadata=image.metadata)
