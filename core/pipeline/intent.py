"""Intent detection: which of the nine intents a query has, from weighted lexical cues, with a confidence.

The cues need no model: a pass of precompiled patterns over the normalised query (well under a millisecond),
so it runs on every turn before retrieval and picks the retrieval profile (`memory/profiles.py`, keyed by the
same names). Unlike the original's ordered first-match regex bank, every cue is scored and the evidence is
summed per intent, so "what did I tell you yesterday about my landlord" weighs the time anchor against the
fact question instead of stopping at whichever pattern came first. When the cues are unsure and a second
opinion is given (the composition root passes the MiniLM intent head, `linear_head.py`), its vote is blended
in.

`refine` lets the short-term context settle low-confidence turns: "and the second one?" inherits the intent
of the turn it follows. A distressed tone pulls an unsure or general turn towards emotional support.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

from core.config import INTENT_NAMES
from core.pipeline.intent_cues import EMOTIONAL, FOLLOW_UP_CUE, GENERAL, Combo, Cue, normalise
from core.pipeline.intent_lexicon import PERSONAL_CUES
from core.pipeline.intent_lexicon_social import SOCIAL_CUES
from core.pipeline.intent_lexicon_tasks import COMBOS, DEICTIC, FOLLOW_UP, GENERAL_CUES, TASK_CUES
from core.pipeline.intent_vocab import VOCAB_CUES

DEFAULT_CUES: tuple[Cue, ...] = (*PERSONAL_CUES, *SOCIAL_CUES, *TASK_CUES, *GENERAL_CUES, *VOCAB_CUES)
RECALL_INTENTS = frozenset({"factual_recall", "temporal_recall"})
GENERAL_PRIOR = 0.6  # the evidence any other intent must beat; also the fallback's own score
LOW_CONFIDENCE = 0.5  # below this, the short-term context may settle the intent
# Below this the second opinion is asked, and it carries this part of the blended scores. Chosen on batches
# held out from the head's training (docs/intent_eval.md): cue results under 0.6 were wrong a third of the
# time, the head's vote on them was right about nine times in ten.
SECOND_OPINION_BELOW = 0.6
SECOND_OPINION_WEIGHT = 0.6
SECOND_OPINION_CEILING = 0.75  # a vote alone never claims more than this confidence
DISTRESS_TONES = frozenset({"crisis", "elevated"})
_FOLLOW_UP_MAX_WORDS = 8
# Long pastes (logs, documents) are read at the head and the tail only: that is where the request and the
# error are, and it keeps the worst case around ten milliseconds.
_HEAD_CHARS = 1000
_TAIL_CHARS = 300


@dataclass(frozen=True)
class IntentResult:
    """The intent of one query.

    `scores` holds every intent's share of the evidence (they add up to 1); `confidence` in [0, 1] is the
    winner's share discounted when the evidence is thin; `cues` names what fired (`intent:cue`), plus
    `context:follow_up` for a turn shaped like a follow-up and `stm:<intent>` / `tone:<level>` when
    refinement changed the answer.
    """

    intent: str
    confidence: float
    scores: Mapping[str, float] = field(default_factory=dict)
    cues: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "scores", MappingProxyType(dict(self.scores)))

    @property
    def is_follow_up(self) -> bool:
        """Whether the query read like a follow-up to the previous turn."""
        return FOLLOW_UP_CUE in self.cues

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready view (for `analyze --json` and logs)."""
        return {
            "intent": self.intent,
            "confidence": self.confidence,
            "scores": dict(self.scores),
            "cues": list(self.cues),
        }


@dataclass(frozen=True)
class StmHint:
    """What the short-term context says about the previous turn, for refining a low-confidence intent."""

    previous_intent: str | None = None
    previous_confidence: float = 0.0
    is_follow_up: bool = False  # the STM analysis judged this turn a continuation of the last one


class IntentVoter(Protocol):
    """A second opinion on a message's intent: each intent's share of the vote (empty: no opinion)."""

    def vote(self, text: str) -> Mapping[str, float]: ...


class IntentClassifier:
    """Scores a query against weighted cue patterns for each intent; `general` is the fallback.

    Stateless after construction (safe to share between sessions and threads). `cues`, `combos` and the
    thresholds can be replaced for experiments; the defaults are the shipped lexicon.
    """

    def __init__(
        self,
        cues: Iterable[Cue] = DEFAULT_CUES,
        combos: Iterable[Combo] = COMBOS,
        *,
        general_prior: float = GENERAL_PRIOR,
        low_confidence: float = LOW_CONFIDENCE,
        second_opinion: IntentVoter | None = None,
        second_opinion_below: float = SECOND_OPINION_BELOW,
        second_opinion_weight: float = SECOND_OPINION_WEIGHT,
    ) -> None:
        self._cues = tuple(cues)
        self._combos = tuple(combos)
        unknown = ({c.intent for c in self._cues} | {c.intent for c in self._combos}) - set(INTENT_NAMES)
        if unknown:
            raise ValueError(f"cues name unknown intents: {sorted(unknown)}")
        self.general_prior = general_prior
        self.low_confidence = low_confidence
        self._second_opinion = second_opinion
        self._second_opinion_below = second_opinion_below
        self._second_opinion_weight = second_opinion_weight

    def classify(self, text: str, short_term: StmHint | None = None) -> IntentResult:
        """The intent of `text`; with `short_term`, refined by the previous turn when confidence is low."""
        result = self._classify(text)
        unsure = result.confidence < self._second_opinion_below
        if self._second_opinion is not None and unsure and text.strip():
            result = self._consult_second_opinion(text, result)
        return self.refine(result, short_term) if short_term is not None else result

    def _consult_second_opinion(self, text: str, result: IntentResult) -> IntentResult:
        """An unsure result blended with the second opinion's vote; its winner is named in the cues."""
        assert self._second_opinion is not None
        votes = self._second_opinion.vote(text[:_HEAD_CHARS])
        if not votes:
            return result
        weight = self._second_opinion_weight
        blended = {
            name: (1.0 - weight) * result.scores.get(name, 0.0) + weight * votes.get(name, 0.0)
            for name in INTENT_NAMES
        }
        winner = max(blended, key=blended.__getitem__)
        confidence = max(result.confidence, min(SECOND_OPINION_CEILING, blended[winner]))
        cues = (*result.cues, f"head:{winner}")
        return IntentResult(winner, round(confidence, 3), _rounded(blended), cues)

    def _classify(self, text: str) -> IntentResult:
        if len(text) > _HEAD_CHARS + _TAIL_CHARS:
            text = f"{text[:_HEAD_CHARS]}\n{text[-_TAIL_CHARS:]}"
        normalised = normalise(text)
        if not normalised:
            return IntentResult(GENERAL, 0.0, _shares({GENERAL: 1.0}), ())
        totals = dict.fromkeys(INTENT_NAMES, 0.0)
        fired: list[str] = []
        for cue in self._cues:
            hits = cue.hits(normalised, text)
            if hits:
                totals[cue.intent] += cue.weight * hits
                fired.append(f"{cue.intent}:{cue.name}")
        fired_set = set(fired)
        for combo in self._combos:
            if all(name in fired_set for name in combo.requires):
                totals[combo.intent] += combo.weight
                fired.append(f"{combo.intent}:{combo.name}")
        totals[GENERAL] += self.general_prior
        if _looks_like_follow_up(normalised):
            fired.append(FOLLOW_UP_CUE)
        return _result(totals, tuple(fired))

    def refine(
        self, result: IntentResult, short_term: StmHint | None, *, tone: str | None = None
    ) -> IntentResult:
        """Settle a low-confidence result with the short-term context (and, optionally, the tone level).

        A follow-up ("and what about the second one?") leans strongly on the previous turn's intent; any
        other unsure turn leans on it a little. A crisis or elevated tone moves an unsure or general turn
        to emotional support. Confident results are returned unchanged.
        """
        result = self._refine_by_tone(result, tone)
        if short_term is None or result.confidence >= self.low_confidence:
            return result
        previous = short_term.previous_intent
        if previous not in INTENT_NAMES or previous == result.intent:
            return result
        follow_up = short_term.is_follow_up or result.is_follow_up
        # A follow-up leans on the previous turn by default; any other unsure turn only a little.
        previous_confidence = _clamp(short_term.previous_confidence)
        pull = 0.5 + 0.5 * previous_confidence if follow_up else 0.3 * previous_confidence
        blended = {k: (1 - pull) * v + (pull if k == previous else 0.0) for k, v in result.scores.items()}
        winner = max(blended, key=blended.__getitem__)
        if winner != previous:
            return result
        ceiling = previous_confidence * (0.8 if follow_up else 0.5)
        confidence = max(result.confidence, min(blended[winner], ceiling))
        return IntentResult(
            previous, round(confidence, 3), _rounded(blended), (*result.cues, f"stm:{previous}")
        )

    def as_told(self, result: IntentResult) -> IntentResult:
        """The intent of a message that tells something rather than asks: recall intents are for asking
        ("Actually, Priya moved to Seattle" shares an update), so the best other intent by the same evidence
        wins (general when nothing else has any)."""
        if result.intent not in RECALL_INTENTS:
            return result
        kept = {k: v for k, v in result.scores.items() if k not in RECALL_INTENTS}
        total = sum(kept.values()) or 1.0
        shares = {k: kept.get(k, 0.0) / total for k in INTENT_NAMES}
        winner = max(kept, key=lambda name: (kept[name], name != GENERAL))
        confidence = min(result.confidence, shares[winner])
        return IntentResult(winner, round(confidence, 3), _rounded(shares), (*result.cues, "act:statement"))

    def _refine_by_tone(self, result: IntentResult, tone: str | None) -> IntentResult:
        if tone not in DISTRESS_TONES or result.intent == EMOTIONAL:
            return result
        if result.intent != GENERAL and result.confidence >= self.low_confidence:
            return result
        scores = {k: v * 0.5 for k, v in result.scores.items()}
        scores[EMOTIONAL] += 0.5
        confidence = max(0.6, result.confidence)
        return IntentResult(EMOTIONAL, confidence, _rounded(scores), (*result.cues, f"tone:{tone}"))


def _looks_like_follow_up(normalised: str) -> bool:
    """Short turns that open like a continuation or lean on "that/it/the one" without naming anything."""
    words = normalised.split()
    if len(words) > _FOLLOW_UP_MAX_WORDS:
        return False
    return bool(FOLLOW_UP.search(normalised)) or (len(words) <= 4 and bool(DEICTIC.search(normalised)))


def _result(totals: Mapping[str, float], fired: tuple[str, ...]) -> IntentResult:
    """Pick the winner (ties go to the earlier intent, `general` last) and turn evidence into confidence."""
    order = [name for name in INTENT_NAMES if name != GENERAL] + [GENERAL]
    winner = max(order, key=lambda name: (totals[name], -order.index(name)))
    shares = _shares(totals)
    # Thin evidence (one weak cue, or only the prior) is not trusted even when nothing competes with it.
    strength = 1.0 - math.exp(-totals[winner])
    return IntentResult(winner, round(_clamp(shares[winner] * strength), 3), shares, fired)


def _shares(totals: Mapping[str, float]) -> dict[str, float]:
    total = sum(totals.values()) or 1.0
    return {name: round(totals.get(name, 0.0) / total, 4) for name in INTENT_NAMES}


def _rounded(scores: Mapping[str, float]) -> dict[str, float]:
    return {name: round(scores.get(name, 0.0), 4) for name in INTENT_NAMES}


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))
