"""Memory configuration: retrieval settings and the per-intent profiles (memory/profiles.py holds the
built-in values). Part of `core.config`, kept apart to keep each module small."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


INTENT_NAMES: tuple[str, ...] = (
    "factual_recall",
    "temporal_recall",
    "emotional_support",
    "casual_social",
    "technical_help",
    "creative_exploration",
    "meta_conversational",
    "project_work",
    "general",
)
MEMORY_COLLECTION_NAMES: tuple[str, ...] = (
    "conversations",
    "facts",
    "wiki_knowledge",
    "git_commits",
    "procedural_skills",
    "summaries",
    "reflections",
    "threads",
    "proposals",
    "synthesis_results",
    "reference_docs",
    "obsidian_notes",
    "visual_memories",
)
_Weight = Field(None, ge=0, le=10)


def _per_collection(name: str, kind: type, **bounds: float) -> type[_Frozen]:
    """A model with one optional field per collection, so a misspelt collection is an unknown key."""
    fields: dict[str, Any] = {c: (kind | None, Field(None, **bounds)) for c in MEMORY_COLLECTION_NAMES}
    return create_model(name, __base__=_Frozen, **fields)


# Unset keys (None) keep the built-in value of memory/profiles.py for that intent.
CollectionLimitsConfig = _per_collection("CollectionLimitsConfig", int, ge=0, le=1000)
StructurePriorConfig = _per_collection("StructurePriorConfig", float, ge=0, le=1)


class ScoreWeightsConfig(_Frozen):
    relevance: float | None = _Weight
    recency: float | None = _Weight
    truth: float | None = _Weight
    importance: float | None = _Weight
    continuity: float | None = _Weight
    structure: float | None = _Weight
    topic_match: float | None = _Weight


class BonusesConfig(_Frozen):
    anchor: float | None = _Weight
    entity: float | None = _Weight
    time_window: float | None = _Weight
    time_mention: float | None = _Weight
    session: float | None = _Weight
    session_top: int | None = Field(None, ge=1, le=50)
    graph: float | None = _Weight
    meta: float | None = _Weight


class PenaltiesConfig(_Frozen):
    staleness: float | None = _Weight
    staleness_steep: float | None = _Weight
    superseded: float | None = _Weight
    closed_item: float | None = _Weight
    size: float | None = _Weight
    size_chars: int | None = Field(None, ge=100)
    deictic_drift: float | None = _Weight


class IntentProfileConfig(_Frozen):
    gate_threshold: float | None = Field(None, ge=0, le=1)
    min_keep: int | None = Field(None, ge=0, le=500)
    half_life_days: float | None = Field(None, gt=0, le=36500)
    recency_by_active_days: bool | None = None
    weights: ScoreWeightsConfig = ScoreWeightsConfig()
    limits: CollectionLimitsConfig = CollectionLimitsConfig()  # type: ignore[valid-type]
    bonuses: BonusesConfig = BonusesConfig()
    penalties: PenaltiesConfig = PenaltiesConfig()


IntentProfilesConfig = create_model(
    "IntentProfilesConfig",
    __base__=_Frozen,
    **{name: (IntentProfileConfig, IntentProfileConfig()) for name in INTENT_NAMES},  # type: ignore[call-overload]
)


class RerankerConfig(_Frozen):
    model: str | None = None  # path of a sentence-transformers CrossEncoder; null: no reranking
    weight: float = Field(0.4, ge=0, le=1)  # share of the cross-encoder in the reranked relevance
    top_n: int = Field(20, ge=1, le=500)


class MemoryConfig(_Frozen):
    """Retrieval settings and the per-intent gating/scoring profiles."""

    chroma_host: str | None = None  # None: embedded Chroma in the data dir; else a `chroma run` server
    chroma_port: int = Field(8000, ge=1, le=65535)
    recall_limit: int = Field(6, ge=0, le=50)  # memories shown to the model per turn
    timeout_s: float = Field(5.0, gt=0, le=300)  # per collection task
    dense_candidates: int = Field(50, ge=1, le=1000)  # nearest neighbours per collection
    lexical_candidates: int = Field(50, ge=0, le=1000)  # BM25 hits per collection and view
    dense_weight: float = Field(0.5, ge=0, le=1)  # relevance = w * dense + (1 - w) * lexical
    structure_prior: StructurePriorConfig = StructurePriorConfig()  # type: ignore[valid-type]
    reranker: RerankerConfig = RerankerConfig()
    profiles: IntentProfilesConfig = IntentProfilesConfig()  # type: ignore[valid-type]


