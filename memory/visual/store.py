"""Visual memory: images the user added, kept consistent across two indexes.

- `visual_memories` (Chroma, through `MemoryService`): one record per distinct image (id from its
  SHA-256), its caption and tags as text (MiniLM + BM25 find it by words), its path, size, entity ids and
  `index_position`, the FAISS id of its vector. This record is the truth.
- The FAISS index (`FaissImageIndex`): the image's CLIP vector under that id, when an encoder is
  configured. It is derived data: it can always be rebuilt from the records and the image files.

Write order keeps a crash harmless: an image's vector is saved before its record is written, and a record is
deleted before its vector. So a crash between the two writes can only leave a vector without a record, and
`open()` drops such vectors; a record without a vector (an index that was damaged, lost, or built by another
encoder) gets its image re-encoded from its file at `open()`, or stays findable by caption alone when the
file is gone or changed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import UserInputError
from memory.collections import make_id
from memory.service import MemoryService
from memory.vector_store import Record
from memory.visual.decode import DecodedImage, ImageLimits, ImageRejected, decode_image, read_image_bytes
from memory.visual.encoder import ImageEncoder
from memory.visual.index import FaissImageIndex, faiss_id
from memory.visual.tagging import (
    Captioner,
    EntityLookup,
    choose_caption,
    record_text,
    resolve_tags,
    split_tags,
)

logger = logging.getLogger(__name__)

VISUAL = "visual_memories"


@dataclass(frozen=True)
class StoredImage:
    """One image as visual memory holds it."""

    id: str
    sha256: str
    path: str
    text: str
    media_type: str
    width: int
    height: int
    entity_ids: tuple[str, ...]
    tags: tuple[str, ...]
    created_at: float
    caption_source: str
    metadata: dict[str, Any] = field(compare=False)  # as stored (json fields as JSON text) or as written

    def as_json(self) -> dict[str, Any]:
        """The `--json` view."""
        return {
            "id": self.id,
            "sha256": self.sha256,
            "path": self.path,
            "caption": self.text,
            "media_type": self.media_type,
            "width": self.width,
            "height": self.height,
            "entity_ids": list(self.entity_ids),
            "tags": list(self.tags),
            "created_at": self.created_at,
            "caption_source": self.caption_source,
        }


@dataclass(frozen=True)
class AddOutcome:
    """What `add` did: the stored image, and whether it was there already (then nothing was written)."""

    image: StoredImage
    duplicate: bool
    indexed: bool  # whether its CLIP vector is in the FAISS index


@dataclass(frozen=True)
class Reconciled:
    """What `open()` repaired: vectors without a record dropped, records re-encoded, records left without
    a vector (their file gone or changed: still found by caption)."""

    dropped: int = 0
    reencoded: int = 0
    unindexed: int = 0


class VisualMemory:
    """Add, list, remove and look up images; `open()` first (the CLI and `find` do it when needed)."""

    def __init__(
        self,
        memory: MemoryService,
        limits: ImageLimits,
        *,
        index: FaissImageIndex | None = None,
        encoder: ImageEncoder | None = None,
        captioner: Captioner | None = None,
        entities: EntityLookup | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """Without `encoder` (and `index`) no vectors are kept: images are found by caption and tag."""
        if (index is None) != (encoder is None):
            raise ValueError("an image index needs its encoder, and an encoder its index")
        self.memory = memory
        self.limits = limits
        self.index = index
        self.encoder = encoder
        self.captioner = captioner
        self.entities = entities
        self._clock = clock
        self._lock = threading.RLock()
        self._opened = False
        self.reconciled = Reconciled()

    def open(self) -> Reconciled:
        """Load the index and bring it in step with the records (idempotent)."""
        with self._lock:
            if not self._opened:
                if self.index is not None:
                    self.index.open()
                    self.reconciled = self._reconcile()
                self._opened = True
            return self.reconciled

    def _reconcile(self) -> Reconciled:
        assert self.index is not None
        records = {faiss_id(str(r.metadata["image_hash"])): r for r in self.memory.store.get(VISUAL)}
        held = self.index.ids()
        dropped = self.index.remove(held - set(records))
        missing = [records[key] for key in sorted(set(records) - held)]
        reencoded = self._reencode(missing)
        result = Reconciled(dropped, reencoded, len(missing) - reencoded)
        if result != Reconciled():
            logger.info("visual index brought in step with visual_memories: %s", result)
        return result

    def _reencode(self, records: Sequence[Record]) -> int:
        """Re-encode the images of records that have no vector, from their files when unchanged."""
        assert self.index is not None and self.encoder is not None
        done = 0
        for record in records:
            path, expected = str(record.metadata.get("image_path", "")), str(record.metadata["image_hash"])
            try:
                decoded = decode_image(read_image_bytes(Path(path), self.limits), self.limits, path)
            except ImageRejected as error:
                logger.warning("image %s not re-encoded: %s", record.id, error)
                continue
            if decoded.sha256 != expected:
                logger.warning("image %s not re-encoded: %s changed since it was added", record.id, path)
                continue
            self.index.add([faiss_id(expected)], self.encoder.encode_images([decoded.preview]))
            done += 1
        return done

    # --- writes -------------------------------------------------------------------------------------

    def add(
        self, path: Path, caption: str | None = None, tags: str | Sequence[str] | None = None
    ) -> AddOutcome:
        """Store the image at `path` (refused with `ImageRejected` when it cannot be read within the
        limits); the same bytes already stored are not stored again (`duplicate`)."""
        self.open()
        source = path.expanduser().resolve()
        decoded = decode_image(read_image_bytes(source, self.limits), self.limits, source.name)
        with self._lock:
            stored = self._by_hash(decoded.sha256)
            if stored is not None:
                return AddOutcome(stored, True, self._indexed(decoded.sha256))
            record = self._record(source, decoded, caption, split_tags(tags))
            key = faiss_id(decoded.sha256)
            if self.index is not None and self.encoder is not None:  # both or neither (see __init__)
                # first: a crash now leaves a vector open() drops
                self.index.add([key], self.encoder.encode_images([decoded.preview]))
            try:
                self.memory.add(VISUAL, [record])
            except Exception:
                if self.index is not None:
                    self.index.remove([key])
                raise
            return AddOutcome(_stored(record), False, self.index is not None)

    def _record(self, source: Path, decoded: DecodedImage, caption: str | None, tags: list[str]) -> Record:
        png = decoded.preview_png() if self.captioner is not None and not caption else None
        text, origin = choose_caption(caption, png, str(source), decoded.taken_at, self.captioner)
        tagged = resolve_tags(tags, text, self.entities)
        meta: dict[str, Any] = {
            "image_hash": decoded.sha256,
            "image_path": str(source),
            "media_type": decoded.media_type,
            "width": decoded.width,
            "height": decoded.height,
            "entity_ids": list(tagged.entity_ids),
            "index_position": faiss_id(decoded.sha256),
            "tags": [*tagged.entity_names, *tagged.plain],
            # Milliseconds: Chroma's metadata round trip can change a float's 17th digit, and the record read
            # back must equal the one `add` returned.
            "created_at": round(self._clock(), 3),
            "source": origin,  # user | vision | file: where the caption came from
            "external_id": str(source),
        }
        return Record(make_id(VISUAL, decoded.sha256), record_text(text, tagged, decoded.taken_at), meta)

    def remove(self, key: str) -> StoredImage | None:
        """Remove one image by id, SHA-256 (or a prefix of 8+ hex digits) or path; None when none
        matches. `UserInputError` when the key names several."""
        self.open()
        with self._lock:
            found = self._match(key)
            if found is None:
                return None
            self.memory.delete(VISUAL, [found.id])  # first: a crash now leaves a vector open() drops
            if self.index is not None:
                self.index.remove([faiss_id(found.sha256)])
            return found

    # --- reads --------------------------------------------------------------------------------------

    def images(self) -> list[StoredImage]:
        """Every stored image the user has not hidden, newest first."""
        hidden = self.memory.hidden_ids(VISUAL)
        found = [_stored(r) for r in self.memory.store.get(VISUAL) if r.id not in hidden]
        return sorted(found, key=lambda image: image.created_at, reverse=True)

    def by_entities(self, entity_ids: Sequence[str]) -> list[StoredImage]:
        """Images tagged with any of these entities, those of the first entity first, newest first."""
        wanted = list(entity_ids)
        tagged = [i for i in self.images() if set(i.entity_ids) & set(wanted)]
        return sorted(tagged, key=lambda i: min(wanted.index(e) for e in i.entity_ids if e in wanted))

    def by_ids(self, ids: Sequence[str]) -> list[StoredImage]:
        """Stored images by record id (hidden ones left out), in the order asked."""
        hidden = self.memory.hidden_ids(VISUAL)
        found = {r.id: _stored(r) for r in self.memory.store.get(VISUAL, ids=list(ids)) if r.id not in hidden}
        return [found[i] for i in ids if i in found]

    def clip_ranked(self, query: str, k: int) -> list[tuple[StoredImage, float]]:
        """Images by CLIP similarity of their vector to the query text, best first (empty when the
        encoder cannot rank)."""
        if self.encoder is None or self.index is None or not self.encoder.ranks:
            return []
        self.open()
        hits = self.index.search(self.encoder.encode_text(query), k)
        by_key = {faiss_id(i.sha256): i for i in self.images()}
        return [(by_key[key], score) for key, score in hits if key in by_key]

    async def caption_search(self, query: str, k: int) -> list[tuple[StoredImage, float]]:
        """Images by their caption and tags (MiniLM + BM25, the normal memory search), best first."""
        from memory.candidates import QueryContext

        ctx = QueryContext(query=query, now=self._clock())
        found = await self.memory.search(ctx, collections=[VISUAL], k=k)
        images = {i.id: i for i in await asyncio.to_thread(self.by_ids, [m.id for m in found])}
        return [(images[m.id], m.score) for m in found if m.id in images]

    def _by_hash(self, sha256: str) -> StoredImage | None:
        found = self.memory.store.get(VISUAL, where={"image_hash": sha256})
        return _stored(found[0]) if found else None

    def _indexed(self, sha256: str) -> bool:
        return self.index is not None and faiss_id(sha256) in self.index.ids()

    def _match(self, key: str) -> StoredImage | None:
        key = key.strip()
        images = self.images()
        exact = [i for i in images if key in (i.id, i.sha256)]
        if exact:
            return exact[0]
        resolved = str(Path(key).expanduser().resolve()) if key else ""
        named = [i for i in images if i.path == resolved]
        if not named and len(key) >= 8 and all(c in "0123456789abcdef" for c in key.lower()):
            named = [i for i in images if i.sha256.startswith(key.lower())]
        if len(named) > 1:
            raise UserInputError(f"{key!r} names {len(named)} images; use an id from `image list`")
        return named[0] if named else None

    def close(self) -> None:
        """Forget the loaded index (every change is already on disk)."""
        with self._lock:
            if self.index is not None:
                self.index.close()
            self._opened = False


def _stored(record: Record) -> StoredImage:
    meta = record.metadata
    return StoredImage(
        record.id,
        str(meta.get("image_hash", "")),
        str(meta.get("image_path", "")),
        record.text,
        str(meta.get("media_type", "")),
        int(meta.get("width", 0) or 0),
        int(meta.get("height", 0) or 0),
        tuple(_json_list(meta.get("entity_ids"))),
        tuple(_json_list(meta.get("tags"))),
        float(meta.get("created_at", 0.0) or 0.0),
        str(meta.get("source", "")),
        dict(meta),
    )


def _json_list(raw: Any) -> list[str]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []
