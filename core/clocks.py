"""A clock whose time is set by hand: the journal's clock while exchanges that already happened are
written (a benchmark's replay, an imported chat), so each is dated when it was said."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SettableClock:
    """Returns `now`, which the writer sets before each exchange."""

    now: float = 0.0

    def __call__(self) -> float:
        return self.now
