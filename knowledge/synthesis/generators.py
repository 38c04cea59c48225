"""Generators 0 and 2: analogous structure found by retrieval, and a model bridging two stores.

Both start from a `Pool`: texts sampled from the user's stores, embedded once and read for their domain.

Retrieval by structure (0): a text's structure is what is left when its subject matter is taken away: the
lemmas of its verbs, adjectives and adverbs ("Sourdough starter needs regular feeding to stay alive" →
"need regular stay alive"). That skeleton is searched across the stores (and the Wikipedia index when one
is configured); a hit from another domain that shares the skeleton is an analogy candidate.

Cross-store (2): a fact about the user and a piece of knowledge (a document, a note, Wikipedia) from two
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
KNOWLEDGE = ("wiki_knowledge", "reference_docs", "obsidian_notes")


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
    """Generator 0: search each seed's skeleton; hits from another domain that share it become candidates.

    `search(vector, k)` returns known texts near a vector across the stores (and Wikipedia); `domains`
    reads a hit's domain when it is not in the pool.
    """

    def __init__(
        self,
        structure: Callable[[str], list[str]],
        embed: Callable[[Sequence[str]], Any],
        search: Callable[[np.ndarray, int], list[tuple[KnownText, float]]],
        domains: DomainReader,
        *,
        min_shared: int = 2,
        k: int = 10,
    ) -> None:
        self._structure = structure
        self._embed = embed
        self._search = search
        self._domains = domains
        self._min_shared = min_shared
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
            if len(skeleton) < self._min_shared:
                continue
            query = np.asarray(self._embed([" ".join(skeleton)]), dtype=np.float32)[0]
            hits = [(h, s) for h, s in self._search(query, self._k) if h.id != seed.id]
            if not hits:
                continue
            hit_domains = self._domains.read([h.text for h, _ in hits])
            for (hit, _), reading in zip(hits, hit_domains, strict=True):
                if reading.domain in (UNASSIGNED, domain):
                    continue
                shared = [w for w in dict.fromkeys(skeleton) if w in set(self._structure(hit.text))]
                if len(shared) < self._min_shared:
                    continue
                pair = frozenset((seed.id, hit.id))
                if pair not in found:
                    found[pair] = self._candidate(seed, hit, shared)
                break
        return list(found.values())

    @staticmethod
    def _candidate(seed: KnownText, hit: KnownText, shared: list[str]) -> Candidate:
        pattern = ", ".join(shared[:5])
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
        personal, knowledge = pool.indexes(("facts", "conversations")), pool.indexes(KNOWLEDGE)
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
