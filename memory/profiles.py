"""Intent profiles: what each intent retrieves (per-collection limits), how it gates and how it weighs scores.

One composite scoring function serves every intent (memory/scoring.py); the intents differ only in the
numbers. Those numbers live once, in the committed `config.yaml` (`memory.profiles.<intent>` and
`memory.structure_prior`); `profiles_from_config` turns the loaded configuration into frozen profiles, and
a user's config overrides single keys on top of the committed file.

Scale: the seven weights of an intent add up to 1 and multiply factors in [0, 1]; bonuses and penalties are
absolute amounts on the same scale. The relevance weight sets how much the priors matter: on LoCoMo dev the
measured priors (speaker named .2, time window .2, "when" x mentions a time .1, session prior .2, on a
relevance of 1) are the bonuses there scaled by the relevance weight (.6 x .2 = .12).
Profiles are frozen: a request never writes onto them (the original wrote intent weights onto a shared
scorer object).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from core.config import INTENT_NAMES, MEMORY_COLLECTION_NAMES
from core.config_memory import BonusesConfig, PenaltiesConfig, ScoreWeightsConfig

if TYPE_CHECKING:
    from core.config import MemoryConfig
    from core.config_memory import IntentProfileConfig

GENERAL = "general"


@dataclass(frozen=True)
class IntentProfile:
    """Everything gating and scoring need to know about one intent. Immutable."""

    name: str
    limits: Mapping[str, int]  # collection -> how many results it may contribute; 0 switches it off
    gate_threshold: float  # fused relevance (0-1, relative to the candidate set) needed to pass the gate
    min_keep: int  # the best `min_keep` candidates always pass the gate
    weights: ScoreWeightsConfig
    half_life_days: float  # recency halves every this many days
    recency_by_active_days: bool  # count days the user was active (when known), not calendar days
    bonuses: BonusesConfig
    penalties: PenaltiesConfig
    dense_weight: float  # relevance = w * dense + (1 - w) * lexical
    structure_prior: Mapping[str, float]  # how distilled each collection's records are

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


def _profile(name: str, section: IntentProfileConfig, memory_config: MemoryConfig) -> IntentProfile:
    return IntentProfile(
        name=name,
        limits=section.limits.model_dump(),
        gate_threshold=section.gate_threshold,
        min_keep=section.min_keep,
        weights=section.weights,
        half_life_days=section.half_life_days,
        recency_by_active_days=section.recency_by_active_days,
        bonuses=section.bonuses,
        penalties=section.penalties,
        dense_weight=memory_config.dense_weight,
        structure_prior=memory_config.structure_prior.model_dump(),
    )


def profiles_from_config(memory_config: MemoryConfig) -> IntentProfiles:
    """The nine intents' profiles, as the loaded configuration (config.yaml and the user's keys) sets them."""
    return IntentProfiles(
        {name: _profile(name, getattr(memory_config.profiles, name), memory_config) for name in INTENT_NAMES}
    )
