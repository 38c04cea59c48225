"""Memory configuration: retrieval settings and the per-intent gating/scoring profiles.

Part of `core.config`. The profiles' values are written once, in the committed config.yaml
(`memory.structure_prior`, `memory.profiles.<intent>`); memory/profiles.py turns them into the runtime form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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


def _weight() -> Any:
    return Field(ge=0, le=10)


def _per_collection(name: str, kind: type, *, ge: float, le: float) -> type[_Frozen]:
    """A model with one required field per collection, so a misspelt collection is an unknown key."""
    fields: dict[str, Any] = {c: (kind, Field(ge=ge, le=le)) for c in MEMORY_COLLECTION_NAMES}
    return create_model(name, __base__=_Frozen, **fields)


# The profile models below have no defaults: their values live once, in the committed config.yaml, which
# `load_config` always reads first (a user's file and the environment override single keys on top of it).
if TYPE_CHECKING:
    # Their fields are made at import from the name lists, which mypy cannot read: to it every attribute
    # of one of these models is a field of the model's one value type.
    class CollectionLimitsConfig(_Frozen):
        def __getattr__(self, collection: str) -> int: ...

    class StructurePriorConfig(_Frozen):
        def __getattr__(self, collection: str) -> float: ...

else:
    CollectionLimitsConfig = _per_collection("CollectionLimitsConfig", int, ge=0, le=1000)
    StructurePriorConfig = _per_collection("StructurePriorConfig", float, ge=0, le=1)


class ScoreWeightsConfig(_Frozen):
    """Weights of the seven composite factors (each factor is in [0, 1]; an intent's weights add up to 1)."""

    relevance: float = _weight()
    recency: float = _weight()
    truth: float = _weight()
    importance: float = _weight()
    continuity: float = _weight()
    structure: float = _weight()
    topic_match: float = _weight()


class BonusesConfig(_Frozen):
    """Amounts added for generic evidence beyond the query's words (memory/scoring.py says what each is)."""

    anchor: float = _weight()
    entity: float = _weight()
    time_window: float = _weight()
    time_mention: float = _weight()
    session: float = _weight()
    session_top: int = Field(ge=1, le=50)
    graph: float = _weight()
    meta: float = _weight()


class PenaltiesConfig(_Frozen):
    """Amounts subtracted (given as positive numbers)."""

    staleness: float = _weight()
    staleness_steep: float = _weight()
    superseded: float = _weight()
    closed_item: float = _weight()
    size: float = _weight()
    size_chars: int = Field(ge=100)
    deictic_drift: float = _weight()


class IntentProfileConfig(_Frozen):
    """One intent's gating and scoring numbers (`memory.profiles.<intent>` in config.yaml)."""

    gate_threshold: float = Field(ge=0, le=1)
    min_keep: int = Field(ge=0, le=500)
    half_life_days: float = Field(gt=0, le=36500)
    recency_by_active_days: bool
    weights: ScoreWeightsConfig
    limits: CollectionLimitsConfig
    bonuses: BonusesConfig
    penalties: PenaltiesConfig


if TYPE_CHECKING:

    class IntentProfilesConfig(_Frozen):  # one required field per intent, made at import (see above)
        def __getattr__(self, intent: str) -> IntentProfileConfig: ...

else:
    _intent_fields: dict[str, Any] = {name: (IntentProfileConfig, ...) for name in INTENT_NAMES}
    IntentProfilesConfig = create_model("IntentProfilesConfig", __base__=_Frozen, **_intent_fields)


class RerankerConfig(_Frozen):
    model: str | None = None  # path of a sentence-transformers CrossEncoder; null: no reranking
    weight: float = Field(0.4, ge=0, le=1)  # share of the cross-encoder in the reranked relevance
    top_n: int = Field(20, ge=1, le=500)


class MemoryConfig(_Frozen):
    """Retrieval settings and the per-intent gating/scoring profiles."""

    chroma_host: str | None = None  # None: embedded Chroma in the data dir; else a `chroma run` server
    chroma_port: int = Field(8000, ge=1, le=65535)
    recall_limit: int = Field(6, ge=0, le=50)  # memories shown to the model per turn
    # memories the offline answerer reads per turn, the shown ones first: it quotes one sentence, so it can
    # read further down the ranking than a small model's prompt has room for (`eval locomo`, docs/figures.md)
    evidence_limit: int = Field(16, ge=0, le=50)
    timeout_s: float = Field(5.0, gt=0, le=300)  # per collection task
    dense_candidates: int = Field(50, ge=1, le=1000)  # nearest neighbours per collection
    lexical_candidates: int = Field(50, ge=0, le=1000)  # BM25 hits per collection and view
    dense_weight: float = Field(0.5, ge=0, le=1)  # relevance = w * dense + (1 - w) * lexical
    structure_prior: StructurePriorConfig
    reranker: RerankerConfig = RerankerConfig()
    profiles: IntentProfilesConfig
