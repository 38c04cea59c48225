"""How much a fact is believed: a score in [0, 1] set by its source and moved by events, decaying when unread.

Stateless rules. A fact starts at its source's prior (what the user said outright beats what a model
inferred); confirming it adds, correcting or contradicting it subtracts. Decay is applied when a fact is
read, never written back: an old, never-confirmed fact reads as less certain, but is not lowered below 0.3
by age alone (and is never raised by it).
"""

from __future__ import annotations

from typing import Final

SOURCE_PRIOR: Final = {
    "user_stated": 0.8,
    "corrected": 0.85,  # the user took the trouble to correct it: the most deliberate statement there is
    "llm_extracted": 0.7,
    "inferred": 0.5,
}
DEFAULT_PRIOR: Final = 0.7
EVENT_DELTA: Final = {"confirmation": 0.08, "correction": -0.25, "contradiction": -0.15}
WEEKLY_DECAY: Final = 0.02
DECAY_FLOOR: Final = 0.3
_WEEK_S: Final = 7 * 24 * 3600.0


def initial_truth(source: str, confidence: float = 1.0) -> float:
    """The prior of a new fact: its source's prior, lowered for a hedged statement ("I think I'll …")."""
    prior = SOURCE_PRIOR.get(source, DEFAULT_PRIOR)
    return round(_clamp(prior * min(1.0, 0.5 + 0.5 * max(0.0, confidence) / 0.9)), 4)


def after_event(truth: float, event: str) -> float:
    """The truth after a confirmation, correction or contradiction (clamped to [0, 1])."""
    if event not in EVENT_DELTA:
        raise ValueError(f"unknown truth event {event!r}; expected one of {sorted(EVENT_DELTA)}")
    return round(_clamp(truth + EVENT_DELTA[event]), 4)


def read_truth(stored: float, last_confirmed_at: float, now: float) -> float:
    """The truth as read now: the stored value minus 0.02 per week since the last confirmation (or the
    fact's creation), never below min(0.3, stored)."""
    weeks = max(0.0, now - last_confirmed_at) / _WEEK_S
    return round(max(min(DECAY_FLOOR, stored), stored - WEEKLY_DECAY * weeks), 4)


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))
