"""Values passed between the retrieval stages: candidates found, the query's context, scored results.

Retrieval (memory/retrieval.py) produces `Candidate`s; gating (memory/gating.py) fuses their relevance
evidence and drops weak ones; scoring (memory/scoring.py) ranks what is left into `ScoredMemory`s. All of
it is per request: nothing here is stored on shared objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.ports import GraphBoost


@dataclass(frozen=True)
class Candidate:
    """One record found for a query, with the raw relevance evidence of each signal.

    `dense` is the cosine similarity of the query to the record's stored vector (for conversations that
    vector embeds the previous turn plus this one). `lexical` is the BM25 score of the record's own text,
    `lexical_context` the BM25 score of its contextual text (0 where a collection has no context view).
    """

    id: str
    collection: str
    text: str
    metadata: Mapping[str, Any]
    dense: float
    lexical: float = 0.0
    lexical_context: float = 0.0


@dataclass(frozen=True)
class QueryContext:
    """What is known about the request, beyond its text.

    `now` is epoch seconds (the user's present, or a benchmark's reference time). `speakers` are names a
    query may use for the people in conversations ("Caroline", or the user's own name); `graph_bonus`
    maps record ids to a knowledge-graph boost in [0, 1] computed by the caller; `graph_boost`, when
    given, computes more of them from the texts of the shortlisted candidates (which the caller cannot
    know). `active_days` are times (epoch seconds, any moment of the day) of the days the user talked to
    Daemon; when given, recency counts active days instead of calendar days, so a month away does not age
    every memory by a month.
    """

    query: str
    now: float
    intent: str = "general"
    session_id: str | None = None
    last_exchange: str = ""
    topics: tuple[str, ...] = ()
    speakers: tuple[str, ...] = ()
    graph_bonus: Mapping[str, float] = field(default_factory=dict)
    graph_boost: GraphBoost | None = None
    active_days: tuple[float, ...] = ()


@dataclass(frozen=True)
class GatedCandidate:
    """A candidate that passed the gate, with its fused relevance in [0, 1] and the parts of it."""

    candidate: Candidate
    relevance: float
    evidence: Mapping[str, float]


@dataclass(frozen=True)
class ScoredMemory:
    """A ranked result. `factors` explains the score (each factor and bonus/penalty by name)."""

    id: str
    collection: str
    text: str
    metadata: Mapping[str, Any]
    score: float
    factors: Mapping[str, float]
