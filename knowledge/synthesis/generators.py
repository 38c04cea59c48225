"""Generators 0 and 2: analogous structure found by retrieval, and a model bridging two stores.

Both start from a `Pool`: texts sampled from the user's stores, embedded once and read for their domain.

Retrieval by structure (0): a text's structure is what is left when its subject matter is taken away: the
lemmas of its verbs, adjectives and adverbs ("Sourdough starter needs regular feeding to stay alive" →
"need regular stay alive"). That skeleton is searched across the stores (and the Wikipedia index when one
is configured); a hit from another domain that shares the skeleton is an analogy candidate.

Cross-store (2): something of the user's (a fact, a turn, a note) and a piece of knowledge (a document,
Wikipedia) from two
different domains, sampled at random, and a capable model asked whether a real link exists. Only with a
configured model: it costs a call per pair, so a run asks for at most `max_pairs`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.ports import KnownText
from knowledge.synthesis.candidate import Candidate, Endpoint
from knowledge.synthesis.domains import UNASSIGNED, DomainReader
from knowledge.synthesis.judge import BridgeWriter

RETRIEVAL = "retrieval"
CROSS_STORE = "cross_store"
STRUCTURE_POS = ("VERB", "ADJ", "ADV")
PERSONAL = ("facts", "conversations", "obsidian_notes")
KNOWLEDGE = ("wiki_knowledge", "reference_docs")


@dataclass
class Pool:
    """Texts to start from, with their unit vectors and domains (one row each)."""

    texts: list[KnownText]
    vectors: np.ndarray
    domains: list[str]

    @classmethod
    def of(
        cls, texts: Sequence[KnownText], embed: Callable[[Sequence[str]], Any], domains: DomainReader
    ) -> Pool:
        kept = [t for t in texts if len(t.text.split()) >= 4]
        if not kept:
            return cls([], np.zeros((0, 1), dtype=np.float32), [])
        vectors = np.asarray(embed([t.text for t in kept]), dtype=np.float32)
        return cls(kept, vectors, [r.domain for r in domains.read_vectors(vectors)])

    def indexes(self, collections: Sequence[str]) -> list[int]:
        """Rows of the pool from these collections that have a domain."""
        return [
            i
            for i, t in enumerate(self.texts)
            if t.collection in collections and self.domains[i] != UNASSIGNED
        ]


def structure_of(parse: Callable[[str], Any]) -> Callable[[str], list[str]]:
    """A text's skeleton over a spaCy parser: the lemmas of its verbs, adjectives and adverbs, in order."""

    def skeleton(text: str) -> list[str]:
        doc = parse(text)
        return [t.lemma_.lower() for t in doc if t.pos_ in STRUCTURE_POS and not t.is_stop and t.is_alpha]

    return skeleton


def short(text: str, words: int = 18) -> str:
    """The opening of a text, for quoting it inside a bridge."""
    parts = text.split()
    cut = " ".join(parts[:words]).rstrip(".,;:")
    return cut + ("…" if len(parts) > words else "")


class StructuralRetrieval:
    """Generator 0: search each seed's skeleton; a hit from another domain whose skeleton is closer to the
    seed's than its subject matter is (an analogy, not a neighbour) becomes a candidate.

    `search(vector, k)` returns known texts near a vector across the stores (and Wikipedia); `domains`
    reads the hits' domains.
    """

    def __init__(
        self,
        structure: Callable[[str], list[str]],
        embed: Callable[[Sequence[str]], Any],
        search: Callable[[np.ndarray, int], list[tuple[KnownText, float]]],
        domains: DomainReader,
        *,
        min_structure: float = 0.45,
        min_gap: float = 0.15,
        k: int = 10,
    ) -> None:
        self._structure = structure
        self._embed = embed
        self._search = search
        self._domains = domains
        self._min_structure = min_structure
        self._min_gap = min_gap
        self._k = k

    def propose(self, pool: Pool, rng: random.Random, seeds: int, limit: int) -> list[Candidate]:
        """Up to `limit` candidates from up to `seeds` random texts of the pool."""
        rows = pool.indexes(PERSONAL + KNOWLEDGE)
        rng.shuffle(rows)
        found: dict[frozenset[str], Candidate] = {}
        for row in rows[:seeds]:
            if len(found) >= limit:
                break
            seed, domain = pool.texts[row], pool.domains[row]
            skeleton = self._structure(seed.text)
            if len(skeleton) < 2:
                continue
            best = self._analogy(seed, domain, skeleton, pool.vectors[row])
            if best is not None and frozenset((seed.id, best[0].id)) not in found:
                found[frozenset((seed.id, best[0].id))] = self._candidate(seed, *best, skeleton)
        return list(found.values())

    def _analogy(
        self, seed: KnownText, domain: str, skeleton: list[str], seed_vector: np.ndarray
    ) -> tuple[KnownText, list[str]] | None:
        """The hit of another domain most like the seed in structure and least in subject, if any."""
        query = np.asarray(self._embed([" ".join(skeleton)]), dtype=np.float32)[0]
        hits = [h for h, _ in self._search(query, self._k) if h.id != seed.id]
        skeletons = [self._structure(h.text) for h in hits]
        usable = [(h, sk) for h, sk in zip(hits, skeletons, strict=True) if len(sk) >= 2]
        if not usable:
            return None
        readings = self._domains.read([h.text for h, _ in usable])
        vectors = np.asarray(
            self._embed([h.text for h, _ in usable] + [" ".join(sk) for _, sk in usable]), dtype=np.float32
        )
        texts, shapes = vectors[: len(usable)], vectors[len(usable) :]
        best: tuple[float, KnownText, list[str]] | None = None
        for i, ((hit, shape), reading) in enumerate(zip(usable, readings, strict=True)):
            if reading.domain in (UNASSIGNED, domain):
                continue
            structure, content = float(shapes[i] @ query), float(texts[i] @ seed_vector)
            if structure < self._min_structure or structure - content < self._min_gap:
                continue
            if best is None or structure - content > best[0]:
                best = (structure - content, hit, shape)
        return None if best is None else (best[1], best[2])

    @staticmethod
    def _candidate(seed: KnownText, hit: KnownText, hit_shape: list[str], seed_shape: list[str]) -> Candidate:
        pattern = f"{' '.join(seed_shape[:5])} / {' '.join(hit_shape[:5])}"
        bridge = (
            f'"{short(seed.text)}" and "{short(hit.text)}" follow the same pattern ({pattern}), so what '
            "works for one may work for the other."
        )
        return Candidate(
            Endpoint(seed.text, seed.id, seed.collection),
            Endpoint(hit.text, hit.id, hit.collection),
            bridge,
            RETRIEVAL,
            via=f"shared structure: {pattern}",
        )


class CrossStore:
    """Generator 2: random personal × knowledge pairs from two domains, bridged by a model."""

    def __init__(self, writer: BridgeWriter, *, max_pairs: int = 5) -> None:
        self._writer = writer
        self.max_pairs = max_pairs

    async def propose(self, pool: Pool, rng: random.Random, limit: int) -> list[Candidate]:
        """Up to `min(limit, max_pairs)` model calls, one candidate per pair the model links."""
        personal, knowledge = pool.indexes(PERSONAL), pool.indexes(KNOWLEDGE)
        if not personal or not knowledge:
            return []
        out: list[Candidate] = []
        for _ in range(min(limit, self.max_pairs)):
            a, b = rng.choice(personal), rng.choice(knowledge)
            if pool.domains[a] == pool.domains[b] or pool.texts[a].id == pool.texts[b].id:
                continue
            left, right = pool.texts[a], pool.texts[b]
            ends = (
                Endpoint(left.text, left.id, left.collection),
                Endpoint(right.text, right.id, right.collection),
            )
            bridge = await self._writer.bridge(*ends)
            if bridge:
                out.append(Candidate(*ends, bridge, CROSS_STORE, via="a model's bridge"))
        return out
