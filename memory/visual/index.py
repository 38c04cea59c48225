"""The FAISS index of image vectors: `IndexIDMap` over a flat inner-product index, saved atomically.

Vectors are L2-normalised, so inner product is cosine similarity. Each vector's FAISS id derives from the
image's SHA-256 (`faiss_id`), the same id the Chroma record keeps in `index_position`: the two indexes can
be compared id by id without any table between them. The file is rewritten whole on every change (temp
file, fsync, rename: `core.durable.atomic_write`), so a crash leaves the old index or the new one, never a
torn one; beside it, a small JSON file names the encoder whose vectors it holds. A damaged index file is
moved aside and the index starts empty (the reconcile of `VisualMemory.open` refills it from the images).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.durable import atomic_write, move_aside
from core.errors import StorageError

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

_ID_MASK = (1 << 63) - 1  # FAISS ids are signed 64-bit; keep them non-negative


def faiss_id(sha256_hex: str) -> int:
    """The FAISS id of an image: the first 63 bits of its SHA-256."""
    return int(sha256_hex[:16], 16) & _ID_MASK


class FaissImageIndex:
    """Image vectors by FAISS id, persisted at `path` (+ `path.json` naming the encoder)."""

    def __init__(self, path: Path, encoder_name: str, dim: int) -> None:
        self.path = path
        self.encoder_name = encoder_name
        self.dim = dim
        self._lock = threading.Lock()
        self._index: Any = None
        self.discarded: str | None = None  # why the stored index was not used at open (None: it was)

    @property
    def _meta_path(self) -> Path:
        return self.path.with_name(self.path.name + ".json")

    def open(self) -> None:
        """Load the saved index; start empty when there is none, it is damaged or of another encoder."""
        import faiss

        with self._lock:
            self._index = self._load(faiss) or faiss.IndexIDMap(faiss.IndexFlatIP(self.dim))

    def _load(self, faiss: Any) -> Any:
        if not self.path.exists():
            return None
        meta = self._read_meta()
        if meta.get("encoder") != self.encoder_name or meta.get("dim") != self.dim:
            self.discarded = f"its vectors are of encoder {meta.get('encoder')!r}, not {self.encoder_name!r}"
            logger.warning("visual index %s not used: %s; rebuilt from the images", self.path, self.discarded)
            return None
        try:
            import numpy as np

            index = faiss.deserialize_index(np.frombuffer(self.path.read_bytes(), dtype=np.uint8))
        except (RuntimeError, OSError, ValueError) as error:
            self.discarded = f"it is damaged ({error})"
            moved = move_aside(self.path)
            logger.warning("visual index %s damaged, moved to %s; rebuilt from the images", self.path, moved)
            return None
        if index.d != self.dim:
            self.discarded = f"its vectors have {index.d} dimensions, not {self.dim}"
            return None
        return index

    def _read_meta(self) -> dict[str, Any]:
        try:
            data = json.loads(self._meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _ready(self) -> Any:
        if self._index is None:
            raise StorageError("the visual index is not open")
        return self._index

    def ids(self) -> set[int]:
        """Every FAISS id held."""
        import faiss

        with self._lock:
            index = self._ready()
            return {int(i) for i in faiss.vector_to_array(index.id_map)}

    def __len__(self) -> int:
        with self._lock:
            return int(self._ready().ntotal)

    def add(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        """Add (or replace) vectors by id and save the index; nothing is saved when `ids` is empty."""
        import numpy as np

        if not ids:
            return
        array = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
        keys = np.asarray(list(ids), dtype=np.int64)
        with self._lock:
            index = self._ready()
            index.remove_ids(keys)  # an id added twice would otherwise be held twice
            index.add_with_ids(array, keys)
            self._save(index)

    def remove(self, ids: Iterable[int]) -> int:
        """Remove vectors by id and save the index; returns how many were held."""
        import numpy as np

        keys = np.asarray(sorted(set(ids)), dtype=np.int64)
        if not len(keys):
            return 0
        with self._lock:
            index = self._ready()
            removed = int(index.remove_ids(keys))
            if removed:
                self._save(index)
            return removed

    def search(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The `k` nearest (id, cosine) pairs, best first."""
        import numpy as np

        with self._lock:
            index = self._ready()
            if index.ntotal == 0 or k <= 0:
                return []
            query = np.ascontiguousarray(vector, dtype=np.float32).reshape(1, self.dim)
            scores, found = index.search(query, min(k, int(index.ntotal)))
        return [(int(i), float(s)) for i, s in zip(found[0], scores[0], strict=True) if i != -1]

    def _save(self, index: Any) -> None:
        import faiss

        meta = {"encoder": self.encoder_name, "dim": self.dim, "count": int(index.ntotal)}
        atomic_write(self.path, faiss.serialize_index(index).tobytes())
        atomic_write(self._meta_path, json.dumps(meta).encode("utf-8"))

    def close(self) -> None:
        """Forget the in-memory index (every change is already on disk)."""
        with self._lock:
            self._index = None
