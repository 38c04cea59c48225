"""Retrieval methods for the LoCoMo benchmark: baselines (dense, BM25) and the hybrid turn retriever.

Each method is a `RetrieverFactory` (conversation -> search function). `HybridTurnRetriever` is the method the
memory pipeline mirrors: candidates from dense and BM25 top-N over each turn's bare text and its text with the
previous turn, fused (memory.fusion), with generic priors (speaker named, time window, "when" questions),
then ranked one turn per item so that no slot is wasted.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from core.temporal import asks_for_time, mentions_time, query_time_window, time_affinities
from eval.benchmarks.locomo import LocomoConversation, RetrieverFactory, SearchFn, TurnUnit
from memory.bm25 import BM25Index, Tokenizer
from memory.embeddings import Embedder
from memory.fusion import HybridWeights, hybrid_scores, label_mentions, rrf, top_k

if TYPE_CHECKING:
    import numpy as np


def contextual_text(units: Sequence[TurnUnit], index: int) -> str:
    """A unit's text preceded by the previous turn of its session (what a turn answers or follows up on)."""
    unit = units[index]
    if index and units[index - 1].session == unit.session:
        return f"{units[index - 1].text}\n{unit.text}"
    return unit.text


class UnitEncoder:
    """Embeds unit texts once per run (optionally cached on disk); serves query vectors from a batch pass."""

    def __init__(self, embedder: Embedder, cache_dir: str | Path | None = None) -> None:
        self.embedder = embedder
        self._cache_dir = Path(cache_dir) if cache_dir else None
        self._memo: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}

    def texts(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) vectors of `texts`, computed once per distinct list."""
        import numpy as np

        key = hashlib.sha1("\x00".join([self.embedder.name, *texts]).encode()).hexdigest()[:16]
        if key in self._memo:
            return self._memo[key]
        path = self._cache_dir / f"units_{key}.npy" if self._cache_dir else None
        if path is not None and path.exists():
            vectors = np.load(path)
        else:
            vectors = self.embedder.embed(list(texts))
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                np.save(path, vectors)
        self._memo[key] = vectors
        return vectors

    def prime_queries(self, queries: Sequence[str]) -> None:
        """Embed many queries in one batch, so per-query timings measure retrieval, not the encoder."""
        missing = sorted({q for q in queries if q not in self._queries})
        for query, vector in zip(missing, self.texts(missing), strict=True):
            self._queries[query] = vector

    def query(self, text: str) -> np.ndarray:
        """The query's vector (primed, else embedded now)."""
        vector = self._queries.get(text)
        return vector if vector is not None else self.embedder.embed_query(text)


def _ranked(
    units: Sequence[TurnUnit],
    scores: Sequence[float] | np.ndarray,
    limit: int,
    among: Sequence[int] | None = None,
) -> list[list[str]]:
    """The `limit` best units as one-turn items; `among` maps score positions to unit indices."""
    order = top_k(scores, limit)
    return [[units[among[i] if among is not None else i].uid] for i in order]


def dense_factory(encoder: UnitEncoder, *, limit: int = 100) -> RetrieverFactory:
    """Dense-only baseline: cosine between the query and each bare unit."""

    def build(conv: LocomoConversation) -> SearchFn:
        vectors = encoder.texts([u.text for u in conv.units])
        return lambda query: _ranked(conv.units, vectors @ encoder.query(query), limit)

    return build


def plain_tokenize(text: str) -> list[str]:
    """Lowercase alphanumeric runs: the classic baseline tokenizer (no stopwords, no stemming)."""
    return re.findall(r"[a-z0-9]+", text.lower())


def bm25_factory(
    *, tokenizer: Tokenizer = plain_tokenize, k1: float = 1.2, b: float = 0.75, limit: int = 100
) -> RetrieverFactory:
    """BM25-only baseline over the bare units (plain tokenizer and textbook k1/b by default)."""

    def build(conv: LocomoConversation) -> SearchFn:
        index = BM25Index(k1=k1, b=b, tokenizer=tokenizer)
        index.add_many((str(i), u.text) for i, u in enumerate(conv.units))
        return lambda query: _ranked(conv.units, index.scores(query), limit)

    return build


@dataclass(frozen=True)
class HybridConfig:
    """The hybrid method: candidates from every signal, fused, with generic priors (see memory.fusion)."""

    candidates: int = 50  # top-N taken from each relevance signal
    contextual: bool = True  # also score each turn together with the previous turn
    fusion: str = "linear"  # "linear" (min-max) or "rrf" for the relevance part
    k1: float = 0.9  # Anserini's BM25 defaults; a little better than 1.2/0.75 on short turns
    b: float = 0.4
    weights: HybridWeights = field(default_factory=HybridWeights)
    limit: int = 100


def _candidates(dense: Sequence[np.ndarray], lexical: Sequence[np.ndarray], n: int) -> list[int]:
    """Union of the top-n of every signal (a lexical signal proposes only items sharing a term)."""
    chosen: set[int] = set()
    for scores in dense:
        chosen.update(top_k(scores, n))
    for scores in lexical:
        chosen.update(i for i in top_k(scores, n) if scores[i] > 0)
    return sorted(chosen)


class HybridTurnRetriever:
    """Candidate generation (dense + BM25 top-N, bare and contextual) -> fusion -> priors -> ranking."""

    def __init__(
        self, units: Sequence[TurnUnit], encoder: UnitEncoder, config: HybridConfig | None = None
    ) -> None:
        import numpy as np

        self.units = list(units)
        self.config = cfg = config or HybridConfig()
        self._encoder = encoder
        views = [[u.text for u in self.units]]
        if cfg.contextual:
            views.append([contextual_text(self.units, i) for i in range(len(self.units))])
        self._vectors = [encoder.texts(view) for view in views]
        self._indexes = [BM25Index(k1=cfg.k1, b=cfg.b) for _ in views]
        for index, view in zip(self._indexes, views, strict=True):
            index.add_many((str(i), text) for i, text in enumerate(view))
        self._stamps = [u.timestamp for u in self.units]
        self._now = max(self._stamps, default=datetime.now())
        self._mentions = np.array([1.0 if mentions_time(u.text) else 0.0 for u in self.units])

    def scores(self, query: str) -> tuple[list[int], np.ndarray]:
        """The candidate unit indices and their final scores."""
        import numpy as np

        qvec = self._encoder.query(query)
        dense = [matrix @ qvec for matrix in self._vectors]
        lexical = [np.asarray(index.scores(query)) for index in self._indexes]
        cand = _candidates(dense, lexical, self.config.candidates)
        dense, lexical = [s[cand] for s in dense], [s[cand] for s in lexical]
        if self.config.fusion == "rrf":  # the fused relevance in both slots keeps the dense+lexical scale
            dense = lexical = [rrf([*dense, *lexical])]
        window = query_time_window(query, self._now)
        units = [self.units[i] for i in cand]
        final = hybrid_scores(
            dense,
            lexical,
            groups=[u.session for u in units],
            positions=[u.position for u in units],
            label_match=label_mentions(query, [u.speaker for u in units]),
            time_fit=time_affinities([u.timestamp for u in units], window) if window else None,
            time_mention=self._mentions[cand] if asks_for_time(query) else None,
            weights=self.config.weights,
        )
        return cand, final

    def search(self, query: str) -> list[list[str]]:
        """Ranked items (one dialog id each), best first."""
        cand, final = self.scores(query)
        return _ranked(self.units, final, self.config.limit, among=cand)


def hybrid_factory(encoder: UnitEncoder, config: HybridConfig | None = None) -> RetrieverFactory:
    """The hybrid method as a `RetrieverFactory`."""
    return lambda conv: HybridTurnRetriever(conv.units, encoder, config).search


def make_factory(name: str, encoder: UnitEncoder) -> RetrieverFactory:
    """A built-in method by name: hybrid, rrf (hybrid with rank fusion), dense, bm25, bm25_stemmed."""
    from memory.bm25 import tokenize

    factories: dict[str, Callable[[], RetrieverFactory]] = {
        "hybrid": lambda: hybrid_factory(encoder),
        "rrf": lambda: hybrid_factory(
            encoder, HybridConfig(fusion="rrf", contextual=False, weights=_NO_PRIORS)
        ),
        "dense": lambda: dense_factory(encoder),
        "bm25": lambda: bm25_factory(),
        "bm25_stemmed": lambda: bm25_factory(tokenizer=tokenize, k1=0.9, b=0.4),
    }
    if name not in factories:
        raise ValueError(f"unknown method {name!r}; choose from {', '.join(factories)}")
    return factories[name]()


_NO_PRIORS = HybridWeights(label=0.0, time_window=0.0, time_mention=0.0, neighbour=0.0, group=0.0)
