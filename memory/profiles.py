"""Intent profiles: what each intent retrieves (per-collection limits), how it gates and how it weighs scores.

One composite scoring function serves every intent (memory/scoring.py); the intents differ only in the
numbers held here. The built-in values below are the defaults; `config.yaml` writes every one of them out
(`memory.profiles.<intent>`), and a user's config overrides single keys (`profiles_from_config`).

Scale: the seven weights of an intent add up to 1 and multiply factors in [0, 1]; bonuses and penalties are
absolute amounts on the same scale. The relevance weight sets how much the priors matter: on LoCoMo dev the
measured priors (speaker named .2, time window .2, "when" x mentions a time .1, session prior .2, on a
relevance of 1) are the bonuses here scaled by the relevance weight (.6 x .2 = .12).
Profiles are frozen: a request never writes onto them (the original wrote intent weights onto a shared
scorer object).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from core.config import INTENT_NAMES, MEMORY_COLLECTION_NAMES

if TYPE_CHECKING:
    from core.config import MemoryConfig

GENERAL = "general"


@dataclass(frozen=True)
class ScoreWeights:
    """Weights of the seven composite factors (each factor is in [0, 1])."""

    relevance: float = 0.6
    recency: float = 0.08
    truth: float = 0.08
    importance: float = 0.06
    continuity: float = 0.08
    structure: float = 0.04
    topic_match: float = 0.06


@dataclass(frozen=True)
class Bonuses:
    """Amounts added for generic evidence beyond the query's words (see memory/scoring.py)."""

    anchor: float = 0.12  # the query names the record's speaker
    # The query names a known person (ctx.speakers) who appears in the record's text. Off by default: on
    # LoCoMo dev it was neutral to slightly harmful (-.002 recall@10) once the speaker anchor is in place.
    entity: float = 0.0
    time_window: float = 0.12  # x how well the record's time fits the query's time window
    time_mention: float = 0.06  # a "when" question and a record that mentions a time
    session: float = 0.12  # x strength of the record's session among the candidates (conversations)
    session_top: int = 3  # a session's strength: mean of its best `session_top` scores
    graph: float = 0.25  # x the knowledge-graph boost the caller computed (ctx.graph_bonus)
    meta: float = 0.0  # summaries and reflections, for intents about the conversation itself


@dataclass(frozen=True)
class Penalties:
    """Amounts subtracted (given as positive numbers)."""

    staleness: float = 0.15  # x staleness_ratio
    staleness_steep: float = 0.25  # extra, rising linearly from ratio 0.8 to 1.0
    superseded: float = 0.3  # a fact replaced by a newer one (kept: questions may ask about the past)
    closed_item: float = 0.1  # resolved/rejected threads and proposals
    size: float = 0.15  # very long texts, up to this amount
    size_chars: int = 6000  # texts longer than this start paying the size penalty
    deictic_drift: float = 0.15  # "what about that?" and a record unrelated to the last exchange


DEFAULT_STRUCTURE: Mapping[str, float] = MappingProxyType(
    {
        "facts": 1.0,
        "procedural_skills": 0.8,
        "summaries": 0.8,
        "wiki_knowledge": 0.7,
        "reflections": 0.7,
        "threads": 0.7,
        "synthesis_results": 0.6,
        "git_commits": 0.6,
        "proposals": 0.6,
        "reference_docs": 0.6,
        "obsidian_notes": 0.6,
        "conversations": 0.4,
        "visual_memories": 0.4,
    }
)


@dataclass(frozen=True)
class IntentProfile:
    """Everything gating and scoring need to know about one intent. Immutable."""

    name: str
    limits: Mapping[str, int]  # collection -> how many results it may contribute; 0 switches it off
    gate_threshold: float  # fused relevance (0-1, relative to the candidate set) needed to pass the gate
    min_keep: int  # the best `min_keep` candidates always pass the gate
    weights: ScoreWeights = field(default_factory=ScoreWeights)
    half_life_days: float = 30.0  # recency halves every this many days
    recency_by_active_days: bool = True  # count days the user was active (when known), not calendar days
    bonuses: Bonuses = field(default_factory=Bonuses)
    penalties: Penalties = field(default_factory=Penalties)
    dense_weight: float = 0.5  # relevance = w * dense + (1 - w) * lexical
    structure_prior: Mapping[str, float] = field(default_factory=lambda: DEFAULT_STRUCTURE)

    def __post_init__(self) -> None:
        object.__setattr__(self, "limits", MappingProxyType(dict(self.limits)))
        object.__setattr__(self, "structure_prior", MappingProxyType(dict(self.structure_prior)))

    def limit(self, collection: str) -> int:
        """How many results `collection` may contribute (0 when switched off or unknown)."""
        return self.limits.get(collection, 0)

    @property
    def enabled_collections(self) -> tuple[str, ...]:
        """Collections this intent searches, in the canonical order."""
        return tuple(name for name in MEMORY_COLLECTION_NAMES if self.limit(name) > 0)


class IntentProfiles:
    """Profiles by intent name; an unknown (or missing) intent gets the `general` profile."""

    def __init__(self, profiles: Mapping[str, IntentProfile]) -> None:
        if GENERAL not in profiles:
            raise ValueError("intent profiles need a 'general' profile (the fallback)")
        self._profiles: Mapping[str, IntentProfile] = MappingProxyType(dict(profiles))

    def get(self, intent: str | None) -> IntentProfile:
        """The profile of `intent`, else the general one."""
        return self._profiles.get(intent or GENERAL) or self._profiles[GENERAL]

    def __getitem__(self, intent: str) -> IntentProfile:
        return self.get(intent)

    def __contains__(self, intent: object) -> bool:
        return intent in self._profiles

    def __iter__(self) -> Iterator[str]:
        return iter(self._profiles)

    def __len__(self) -> int:
        return len(self._profiles)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._profiles)


# --- built-in values ------------------------------------------------------------------------------------
# Limits in MEMORY_COLLECTION_NAMES order:
#   conv facts wiki git skills summ refl threads props synth docs notes visual
_LIMITS: dict[str, tuple[int, ...]] = {
    "factual_recall": (15, 10, 5, 0, 0, 5, 2, 2, 0, 2, 8, 5, 2),
    "temporal_recall": (15, 5, 0, 5, 0, 10, 3, 3, 0, 0, 0, 3, 2),
    "emotional_support": (10, 5, 0, 0, 0, 3, 8, 3, 0, 0, 0, 3, 0),
    "casual_social": (3, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0),
    "technical_help": (5, 3, 5, 8, 8, 2, 0, 2, 2, 2, 10, 5, 0),
    "creative_exploration": (8, 3, 3, 0, 0, 3, 8, 2, 2, 5, 3, 5, 3),
    "meta_conversational": (8, 3, 0, 0, 0, 8, 5, 3, 2, 2, 0, 0, 0),
    "project_work": (8, 5, 2, 10, 8, 3, 3, 5, 5, 2, 8, 5, 0),
    "general": (10, 8, 3, 3, 3, 5, 3, 3, 2, 2, 5, 5, 2),
}
# relevance recency truth importance continuity structure topic_match
_WEIGHTS: dict[str, tuple[float, ...]] = {
    "factual_recall": (0.62, 0.03, 0.15, 0.05, 0.05, 0.05, 0.05),
    "temporal_recall": (0.55, 0.08, 0.05, 0.05, 0.15, 0.04, 0.08),
    "emotional_support": (0.50, 0.10, 0.05, 0.08, 0.17, 0.02, 0.08),
    "casual_social": (0.50, 0.15, 0.05, 0.05, 0.15, 0.02, 0.08),
    "technical_help": (0.55, 0.08, 0.12, 0.05, 0.10, 0.05, 0.05),
    "creative_exploration": (0.50, 0.05, 0.05, 0.12, 0.10, 0.08, 0.10),
    "meta_conversational": (0.47, 0.15, 0.05, 0.08, 0.13, 0.05, 0.07),
    "project_work": (0.52, 0.10, 0.10, 0.06, 0.10, 0.05, 0.07),
    "general": (0.62, 0.05, 0.08, 0.06, 0.08, 0.05, 0.06),
}
# gate threshold, min_keep, recency half-life (days), recency by active days
_SCALARS: dict[str, tuple[float, int, float, bool]] = {
    "factual_recall": (0.2, 8, 180.0, True),
    "temporal_recall": (0.15, 10, 30.0, False),  # "last week" means the calendar
    "emotional_support": (0.2, 6, 14.0, True),
    "casual_social": (0.35, 3, 7.0, True),
    "technical_help": (0.25, 8, 60.0, True),
    "creative_exploration": (0.15, 8, 90.0, True),
    "meta_conversational": (0.1, 8, 7.0, True),
    "project_work": (0.2, 8, 21.0, True),
    "general": (0.2, 8, 30.0, True),
}
# Differences from the Bonuses / Penalties defaults.
_BONUSES: dict[str, dict[str, float]] = {
    "temporal_recall": {"anchor": 0.11, "time_window": 0.2, "time_mention": 0.08, "session": 0.11},
    "emotional_support": {"anchor": 0.1, "time_window": 0.1, "session": 0.1},
    "casual_social": {"anchor": 0.1, "time_window": 0.1, "session": 0.1},
    "technical_help": {"anchor": 0.11, "time_window": 0.11, "session": 0.11},
    "creative_exploration": {"anchor": 0.1, "time_window": 0.1, "session": 0.1},
    "meta_conversational": {"anchor": 0.09, "time_window": 0.15, "session": 0.09, "meta": 0.12},
    "project_work": {"anchor": 0.1, "time_window": 0.1, "session": 0.1},
}
_PENALTIES: dict[str, dict[str, float]] = {
    "factual_recall": {"closed_item": 0.0},  # "did I ever fix X?" asks about closed items too
    "temporal_recall": {"superseded": 0.15, "closed_item": 0.0},  # questions about the past
    "meta_conversational": {"closed_item": 0.0},
    "technical_help": {"closed_item": 0.15},
    "project_work": {"closed_item": 0.25},
}


def _default_profile(name: str) -> IntentProfile:
    threshold, min_keep, half_life, by_active_days = _SCALARS[name]
    return IntentProfile(
        name=name,
        limits=dict(zip(MEMORY_COLLECTION_NAMES, _LIMITS[name], strict=True)),
        gate_threshold=threshold,
        min_keep=min_keep,
        weights=ScoreWeights(*_WEIGHTS[name]),
        half_life_days=half_life,
        recency_by_active_days=by_active_days,
        bonuses=replace(Bonuses(), **_BONUSES.get(name, {})),
        penalties=replace(Penalties(), **_PENALTIES.get(name, {})),
    )


def default_profiles() -> IntentProfiles:
    """The built-in profiles of the nine intents."""
    return IntentProfiles({name: _default_profile(name) for name in INTENT_NAMES})


def _set(section: Any) -> dict[str, Any]:
    """The keys a config section actually sets (None means: keep the built-in value)."""
    return {key: value for key, value in section.model_dump().items() if value is not None}


def _overlay(
    base: IntentProfile, section: Any, dense_weight: float, structure: Mapping[str, float]
) -> IntentProfile:
    scalars = {
        key: getattr(section, key)
        for key in ("gate_threshold", "min_keep", "half_life_days", "recency_by_active_days")
        if getattr(section, key) is not None
    }
    return replace(
        base,
        **scalars,
        limits={**base.limits, **_set(section.limits)},
        weights=replace(base.weights, **_set(section.weights)),
        bonuses=replace(base.bonuses, **_set(section.bonuses)),
        penalties=replace(base.penalties, **_set(section.penalties)),
        dense_weight=dense_weight,
        structure_prior={**base.structure_prior, **structure},
    )


def profiles_from_config(memory_config: MemoryConfig | None = None) -> IntentProfiles:
    """The nine profiles: built-in values overlaid with what `memory_config` sets (None: the built-ins)."""
    defaults = default_profiles()
    if memory_config is None:
        return defaults
    structure = _set(memory_config.structure_prior)
    return IntentProfiles(
        {
            name: _overlay(
                defaults.get(name),
                getattr(memory_config.profiles, name),
                memory_config.dense_weight,
                structure,
            )
            for name in INTENT_NAMES
        }
    )
