"""The seven-stage filter: the product is what it rejects.

Every candidate goes through the stages in order and stops at the first it fails, which is recorded with
its figure (`Reading.stages`). Stages 0-4 run offline; stage 5 needs a configured judge model, and without
one a candidate that passed 0-4 waits unjudged ("waiting") rather than being passed on unread.

0 text_sanity        the bridge is a sentence: enough words, a verb with a subject, function words, no
                     repeated content words, words in an order a language model finds natural
                     (fluency.py); it names both of its sides; each endpoint has words
1 domain_crossing    the endpoints fall in two distinct domains (`domains.py`), both clearly assigned
2 semantic_distance  the endpoints' cosine distance lies in a band: closer is a restatement, farther
                     has nothing in common
3 external_novelty   the bridge is not already known: its nearest stored text (memory, documents, the
                     Wikipedia index when configured), other than the endpoints themselves, is below a
                     similarity ceiling
4 internal_novelty   not found before: a bridge this close to an earlier one is a duplicate, and when the
                     earlier one came from another generator that counts as convergence (independent
                     rediscovery) for the earlier one
5 coherence          a judge model rates the link INVALID / WEAK / MODERATE / STRONG; MODERATE or better
6 composite          a weighted score of distance fit, novelty, domain clarity, coherence and convergence
                     reaches the threshold
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from core.errors import DaemonError
from core.ports import KnownText
from knowledge.synthesis.candidate import Candidate, Reading, StageResult
from knowledge.synthesis.domains import UNASSIGNED, DomainReader

logger = logging.getLogger(__name__)
STAGES = (
    "text_sanity",
    "domain_crossing",
    "semantic_distance",
    "external_novelty",
    "internal_novelty",
    "coherence",
    "composite",
)
RATINGS = ("INVALID", "WEAK", "MODERATE", "STRONG")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_FUNCTION_WORDS = frozenset(
    "a an the of to in on at by for with from as and or but so that which who is are was were be been "
    "both each its their his her it they this these those like than then when while because not no".split()
)


@dataclass(frozen=True)
class FilterSettings:
    """The stages' thresholds (config `synthesis.filter`)."""

    min_words: int = 8
    max_words: int = 90
    min_distinct_ratio: float = 0.55
    min_function_ratio: float = 0.12
    min_fluency: float = 2.0  # nats per word above the bridge's own words shuffled (fluency.py)
    distance_band: tuple[float, float] = (0.20, 0.90)
    known_ceiling: float = 0.75
    duplicate_floor: float = 0.90
    min_rating: str = "MODERATE"
    composite_threshold: float = 0.65


class Judge(Protocol):
    """Rates how coherent a connection is (`judge.py`): one of RATINGS and a reason, or None (no answer)."""

    async def rate(self, candidate: Candidate) -> tuple[str, str] | None: ...


KnownSearch = Callable[[np.ndarray, int], list[tuple[KnownText, float]]]


@dataclass
class EarlierBridges:
    """Bridges found before (stored candidates and this run's), for the internal-novelty stage."""

    ids: list[str] = field(default_factory=list)
    generators: list[str] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)

    def closest(self, vector: np.ndarray) -> tuple[str, str, float] | None:
        if not self.vectors:
            return None
        sims = np.vstack(self.vectors) @ vector
        best = int(np.argmax(sims))
        return self.ids[best], self.generators[best], float(sims[best])

    def add(self, candidate_id: str, generator: str, vector: np.ndarray) -> None:
        self.ids.append(candidate_id)
        self.generators.append(generator)
        self.vectors.append(vector)


@dataclass
class StageCounts:
    """How many candidates each stage passed and rejected (waiting ones are neither, at `coherence`)."""

    passed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGES, 0))
    rejected: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGES, 0))
    waiting: int = 0
    duplicates: int = 0

    def count(self, reading: Reading) -> None:
        for result in reading.stages:
            (self.passed if result.passed else self.rejected)[result.stage] += 1
        self.waiting += reading.outcome == "waiting"
        self.duplicates += reading.outcome == "duplicate"

    def to_json(self) -> list[dict[str, Any]]:
        return [{"name": s, "passed": self.passed[s], "rejected": self.rejected[s]} for s in STAGES]


class SynthesisFilter:
    """Runs candidates through the seven stages.

    `embed` gives unit vectors; `clause` says whether a text has a verb with a subject (spaCy, see
    `has_clause`); `known` searches what is already known (memory, documents, Wikipedia); `judge` is None
    when no capable model is configured; `fluency` (fluency.py) is None without the embedded model.
    """

    def __init__(
        self,
        embed: Callable[[Sequence[str]], np.ndarray],
        domains: DomainReader,
        clause: Callable[[str], bool],
        known: KnownSearch,
        *,
        judge: Judge | None = None,
        fluency: Callable[[str], float] | None = None,
        settings: FilterSettings | None = None,
    ) -> None:
        self._embed = embed
        self._fluency = fluency
        self.domains = domains
        self._clause = clause
        self.known = known  # what is already known near a vector (the retrieval generator searches it too)
        self._judge = judge
        self.settings = settings or FilterSettings()

    @property
    def judged(self) -> bool:
        """Whether a judge model is configured."""
        return self._judge is not None

    async def judge_again(
        self, candidate: Candidate, offline: Sequence[StageResult], domains: Sequence[str]
    ) -> Reading:
        """Stages 5 and 6 for a candidate that waited after passing stages 0-4 (`offline`)."""
        left, right = (tuple(domains) + ("", ""))[:2]
        reading = Reading(candidate, stages=list(offline), outcome="passed", domains=(left, right))
        await self._judged(reading)
        return reading

    async def read(self, candidates: Sequence[Candidate], earlier: EarlierBridges) -> list[Reading]:
        """One reading per candidate, in order; `earlier` grows with each new bridge that passes stage 4.
        The offline stages (embeddings, parses, the language model) run in a worker thread, so a front
        end's event loop keeps serving while a run reads."""
        readings = await asyncio.to_thread(self.read_offline, candidates, earlier)
        for reading in readings:
            if reading.outcome == "passed":
                await self._judged(reading)
        return readings

    def read_offline(self, candidates: Sequence[Candidate], earlier: EarlierBridges) -> list[Reading]:
        """Stages 0-4 for each candidate: "rejected" or "duplicate", else "passed" so far."""
        if not candidates:
            return []
        bridges = self._vectors([c.bridge for c in candidates])
        lefts = self._vectors([c.left.text for c in candidates])
        rights = self._vectors([c.right.text for c in candidates])
        left_domains = self.domains.read_vectors(lefts)
        right_domains = self.domains.read_vectors(rights)
        readings = []
        for i, candidate in enumerate(candidates):
            reading = Reading(candidate, domains=(left_domains[i].domain, right_domains[i].domain))
            self._offline(reading, bridges[i], lefts[i], rights[i], earlier)
            readings.append(reading)
        return readings

    def _vectors(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self._embed(texts), dtype=np.float32)

    def _offline(
        self,
        reading: Reading,
        bridge: np.ndarray,
        left: np.ndarray,
        right: np.ndarray,
        earlier: EarlierBridges,
    ) -> bool:
        """Stages 0-4; False (with the outcome set) when one stops the candidate."""
        candidate = reading.candidate
        checks = (
            lambda: self.sanity(candidate),
            lambda: self.crossing(reading.domains),
            lambda: self.distance(float(left @ right)),
            lambda: self.external(candidate, bridge),
        )
        for check in checks:
            result = check()
            reading.stages.append(result)
            if not result.passed:
                reading.outcome = "rejected"
                return False
        result, duplicate_of = self.internal(candidate, bridge, earlier)
        reading.stages.append(result)
        if not result.passed:
            reading.outcome, reading.duplicate_of = "duplicate", duplicate_of
            return False
        earlier.add(candidate.id, candidate.generator, bridge)
        return True

    def sanity(self, candidate: Candidate) -> StageResult:
        """Stage 0: the bridge reads as a sentence and both endpoints have words."""
        s = self.settings
        words = [w.lower() for w in _WORD.findall(candidate.bridge)]
        if len(words) < s.min_words or len(words) > s.max_words:
            return StageResult("text_sanity", False, len(words), f"{len(words)} words in the bridge")
        content = [w for w in words if w not in _FUNCTION_WORDS]
        distinct = len(set(content)) / max(1, len(content))
        if distinct < s.min_distinct_ratio:
            return StageResult("text_sanity", False, round(distinct, 4), "the bridge repeats itself")
        function = sum(w in _FUNCTION_WORDS for w in words) / len(words)
        if function < s.min_function_ratio:
            return StageResult("text_sanity", False, function, "too few function words for a sentence")
        for end in (candidate.left, candidate.right):
            if len(_WORD.findall(end.text)) < 3:
                return StageResult("text_sanity", False, None, "an endpoint has almost no words")
        for end in (candidate.left, candidate.right):
            if not _names(candidate.bridge, end.text):
                return StageResult("text_sanity", False, None, "the bridge does not name one of its sides")
        if not self._clause(candidate.bridge):
            return StageResult("text_sanity", False, None, "no verb with a subject in the bridge")
        if self._fluency is None:
            return StageResult(
                "text_sanity", True, None, "a sentence (word order not checked: no local model)"
            )
        try:
            fluency = round(self._fluency(candidate.bridge), 3)
        except DaemonError as problem:  # the embedded model is missing or broken: say so, do not guess
            logger.warning("synthesis could not read word order: %s", problem)
            self._fluency = None
            return StageResult("text_sanity", True, None, f"a sentence (word order not checked: {problem})")
        if fluency < s.min_fluency:
            return StageResult("text_sanity", False, fluency, "its words are in no sensible order")
        return StageResult("text_sanity", True, fluency, "a sentence")

    def crossing(self, domains: tuple[str, str]) -> StageResult:
        """Stage 1: two distinct, clearly assigned domains."""
        left, right = domains
        if UNASSIGNED in domains:
            return StageResult("domain_crossing", False, None, "an endpoint has no clear domain")
        if left == right:
            return StageResult("domain_crossing", False, 1.0, f"both in {left}")
        return StageResult("domain_crossing", True, 2.0, f"{left} × {right}")

    def distance(self, similarity: float) -> StageResult:
        """Stage 2: the endpoints' cosine distance within the band."""
        low, high = self.settings.distance_band
        d = round(1.0 - similarity, 4)
        if d < low:
            return StageResult("semantic_distance", False, d, "the endpoints say nearly the same thing")
        if d > high:
            return StageResult("semantic_distance", False, d, "the endpoints have nothing in common")
        return StageResult("semantic_distance", True, d, "within the band")

    def external(self, candidate: Candidate, bridge: np.ndarray) -> StageResult:
        """Stage 3: nothing already known (other than the endpoints) says what the bridge says."""
        own = {candidate.left.source_id, candidate.right.source_id} - {""}
        ends = {candidate.left.text.strip().lower(), candidate.right.text.strip().lower()}
        best: tuple[KnownText, float] | None = None
        for known, sim in self.known(bridge, 8):
            if known.id in own or known.text.strip().lower() in ends:
                continue
            if best is None or sim > best[1]:
                best = (known, sim)
        figure = round(best[1], 4) if best else 0.0
        if best and best[1] >= self.settings.known_ceiling:
            return StageResult("external_novelty", False, figure, f"already known: {best[0].text[:100]!r}")
        return StageResult("external_novelty", True, figure, "nothing known says this")

    def internal(
        self, candidate: Candidate, bridge: np.ndarray, earlier: EarlierBridges
    ) -> tuple[StageResult, str]:
        """Stage 4: not found before; the earlier candidate's id when it was (convergence when another
        generator found it)."""
        closest = earlier.closest(bridge)
        if closest is None or closest[2] < self.settings.duplicate_floor:
            figure = round(closest[2], 4) if closest else 0.0
            return StageResult("internal_novelty", True, figure, "new"), ""
        other_id, generator, sim = closest
        how = "rediscovered by another generator" if generator != candidate.generator else "found before"
        return StageResult("internal_novelty", False, round(sim, 4), f"{how} ({other_id})"), other_id

    async def _judged(self, reading: Reading) -> None:
        """Stages 5 and 6 (the candidate passed 0-4)."""
        if self._judge is None:
            reading.outcome = "waiting"
            return
        verdict = await self._judge.rate(reading.candidate)
        if verdict is None:
            reading.outcome = "waiting"
            return
        rating, reason = verdict
        score = rating_score(rating)
        passed = score >= rating_score(self.settings.min_rating)
        reading.stages.append(StageResult("coherence", passed, score, f"{rating}: {reason}"[:300]))
        if not passed:
            reading.outcome = "rejected"
            return
        reading.composite = self.composite(reading, convergence=1)
        passed = reading.composite >= self.settings.composite_threshold
        reading.stages.append(StageResult("composite", passed, reading.composite, "weighted score"))
        reading.outcome = "passed" if passed else "rejected"

    def composite(self, reading: Reading, convergence: int) -> float:
        """Stage 6's score in [0, 1] (weights sum to 1): coherence .35, novelty .25, distance fit .20,
        convergence .10, domain crossing .10."""
        figures = {r.stage: r.figure for r in reading.stages}
        low, high = self.settings.distance_band
        d = figures.get("semantic_distance") or low
        fit = 1.0 - abs(d - (low + high) / 2) / ((high - low) / 2)
        novelty = 1.0 - (figures.get("external_novelty") or 0.0)
        coherence = figures.get("coherence") or 0.0
        converged = min(1.0, 0.5 + 0.25 * (convergence - 1))
        score = 0.35 * coherence + 0.25 * novelty + 0.20 * max(0.0, fit) + 0.10 * converged + 0.10
        return round(min(1.0, score), 4)


def _stems(text: str) -> set[str]:
    """Content words cut to five letters: a rough stem that lets "feeding" match "feed" and "fed" not."""
    return {w.lower()[:5] for w in _WORD.findall(text) if w.lower() not in _FUNCTION_WORDS and len(w) > 2}


def _names(bridge: str, side: str) -> bool:
    """Whether a bridge shares a content word with one of its sides (a bridge naming neither is none)."""
    return bool(_stems(bridge) & _stems(side))


def rating_score(rating: str) -> float:
    """INVALID 0, WEAK 1/3, MODERATE 2/3, STRONG 1."""
    return RATINGS.index(rating) / (len(RATINGS) - 1) if rating in RATINGS else 0.0


def has_clause(parse: Callable[[str], Any]) -> Callable[[str], bool]:
    """A `clause` check over a spaCy parser: the sentence's root is a verb (or auxiliary), or some verb has
    a nominal subject (the small model sometimes roots "Both X and Y need Z" elsewhere)."""

    def check(text: str) -> bool:
        doc = parse(text)
        return any(
            token.pos_ in ("VERB", "AUX")
            and (
                token.dep_ == "ROOT" or any(c.dep_ in ("nsubj", "nsubjpass", "csubj") for c in token.children)
            )
            for token in doc
        )

    return check
