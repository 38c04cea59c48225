"""Configuration of synthesis (`synthesis:` in config.yaml): off by default.

`enabled` adds a bounded run to session-end processing; `python main.py synthesis run` works either way.
The coherence judge is `models.judge` (else `models.fast`, else a connected main model); with only the
built-in model, candidates wait unjudged after the offline stages.
"""

from __future__ import annotations

from pydantic import Field

from core.config_memory import _Frozen


class SynthesisFilterConfig(_Frozen):
    """The seven stages' thresholds (knowledge/synthesis/stages.py)."""

    distance_low: float = Field(0.20, ge=0, le=2)  # endpoints closer than this restate each other
    distance_high: float = Field(0.90, ge=0, le=2)  # farther than this, they have nothing in common
    known_ceiling: float = Field(0.75, gt=0, le=1)  # a bridge this close to a known text is not new
    duplicate_floor: float = Field(0.90, gt=0, le=1)  # this close to an earlier bridge: found before
    min_rating: str = Field("MODERATE", pattern="^(WEAK|MODERATE|STRONG)$")
    composite_threshold: float = Field(0.65, ge=0, le=1)


class SynthesisConfig(_Frozen):
    """Synthesis runs: when, how long, and when they halt."""

    enabled: bool = False  # a run at each session end
    session_end_seconds: float = Field(60.0, gt=0)  # that run's budget
    run_seconds: float = Field(300.0, gt=0)  # `synthesis run`'s default budget
    candidates_per_generator: int = Field(40, ge=1, le=1000)
    model_pairs: int = Field(5, ge=0, le=200)  # cross-store model calls per run (each costs a call)
    halt_after: int = Field(10, ge=1)  # the auto-halt reads at least this many grades ...
    halt_rate: float = Field(0.5, gt=0, le=1)  # ... and halts above this false-positive rate
    filter: SynthesisFilterConfig = SynthesisFilterConfig()
