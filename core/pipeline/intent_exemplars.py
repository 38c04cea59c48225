"""Labelled example queries as a second opinion on intent when the cue lexicon is unsure.

Cue patterns recognise forms ("what is my <x>", "when did I"); messages phrased without any of those forms
fall to the `general` prior. For those, the nearest labelled examples (MiniLM cosine similarity, top k,
similarity-weighted vote) say which intent such messages usually carry. The examples ship in
`data/intent_exemplars.tsv` (the training split of the labelled set; the held-out split is never in it).
Their vectors are computed on first use (about 8 s for ~900 queries on one core), not at start-up, and
cached in the data dir so later runs load them in milliseconds.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from core.config import INTENT_NAMES

EXEMPLARS_FILE = Path(__file__).resolve().parents[2] / "data" / "intent_exemplars.tsv"
Embed = Callable[[list[str]], Sequence[Sequence[float]]]


class IntentExemplars:
    """A nearest-neighbour vote over labelled queries. Thread-safe; vectors are built lazily."""

    def __init__(
        self,
        embed: Embed,
        examples: Sequence[tuple[str, str]],
        *,
        k: int = 9,
        min_similarity: float = 0.25,
        cache_dir: Path | None = None,
    ) -> None:
        unknown = {intent for _, intent in examples} - set(INTENT_NAMES)
        if unknown:
            raise ValueError(f"exemplars name unknown intents: {sorted(unknown)}")
        self._embed = embed
        self._texts = [text for text, _ in examples]
        self._labels = [intent for _, intent in examples]
        self._k = k
        self._min_similarity = min_similarity
        self._matrix: Any = None
        self._lock = threading.Lock()
        digest = hashlib.sha256("\n".join(self._texts).encode("utf-8")).hexdigest()[:16]
        self._cache = cache_dir / f"intent_exemplars-{digest}.npy" if cache_dir is not None else None

    def vote(self, text: str) -> dict[str, float]:
        """Each intent's share of the neighbours' similarity-weighted vote (empty when nothing is close)."""
        import numpy as np

        matrix = self._vectors()
        if matrix is None:
            return {}
        query = np.asarray(self._embed([text])[0], dtype=np.float32)
        query /= float(np.linalg.norm(query)) or 1.0
        similarity = matrix @ query
        top = np.argsort(-similarity)[: self._k]
        votes: dict[str, float] = {}
        for index in top:
            weight = float(similarity[index])
            if weight >= self._min_similarity:
                label = self._labels[int(index)]
                votes[label] = votes.get(label, 0.0) + weight
        total = sum(votes.values())
        return {intent: value / total for intent, value in votes.items()} if total else {}

    def _vectors(self) -> Any:
        with self._lock:
            if self._matrix is None and self._texts:
                self._matrix = self._cached() if self._cache is not None else None
            if self._matrix is None and self._texts:
                import numpy as np

                matrix = np.asarray(self._embed(self._texts), dtype=np.float32)
                norms = np.linalg.norm(matrix, axis=1, keepdims=True)
                self._matrix = matrix / np.where(norms == 0, 1.0, norms)
                self._store(self._matrix)
            return self._matrix

    def _cached(self) -> Any:
        """Vectors saved by an earlier run for these exact texts (None if absent or unreadable)."""
        import numpy as np

        assert self._cache is not None
        try:
            matrix = np.load(self._cache, allow_pickle=False)
        except (OSError, ValueError):
            return None
        return matrix if matrix.shape[0] == len(self._texts) else None

    def _store(self, matrix: Any) -> None:
        """Save the vectors for the next start (a cache: a failure only costs recomputing them)."""
        import numpy as np

        if self._cache is None:
            return
        try:
            self._cache.parent.mkdir(parents=True, exist_ok=True)
            temporary = self._cache.with_suffix(".tmp.npy")
            np.save(temporary, matrix, allow_pickle=False)
            os.replace(temporary, self._cache)
        except OSError:
            return


def read_exemplars(path: Path = EXEMPLARS_FILE) -> list[tuple[str, str]]:
    """(query, intent) rows of a `query<TAB>intent` file; blank and `#` lines are skipped."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            query, intent = line.split("\t")[:2]
            rows.append((query, intent))
    return rows


def load_exemplars(
    embed: Embed, path: Path = EXEMPLARS_FILE, *, cache_dir: Path | None = None
) -> IntentExemplars:
    """The shipped exemplars with the given embedding function (vectors cached in `cache_dir`)."""
    return IntentExemplars(embed, read_exemplars(path), cache_dir=cache_dir)


def blend(lexicon: Mapping[str, float], votes: Mapping[str, float], weight: float) -> dict[str, float]:
    """Scores mixing the lexicon's shares with the exemplar vote (`weight` is the vote's part)."""
    return {
        name: (1.0 - weight) * lexicon.get(name, 0.0) + weight * votes.get(name, 0.0) for name in INTENT_NAMES
    }
