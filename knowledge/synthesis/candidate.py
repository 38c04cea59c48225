"""What a generator proposes and what the filter records about it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Endpoint:
    """One side of a connection: a stored text (or a graph entity's description) and where it came from."""

    text: str
    source_id: str = ""
    collection: str = ""

    def to_json(self) -> dict[str, str]:
        return {"text": self.text, "source_id": self.source_id, "collection": self.collection}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Endpoint:
        return cls(str(data.get("text", "")), str(data.get("source_id", "")), str(data.get("collection", "")))


@dataclass(frozen=True)
class Candidate:
    """A proposed connection: two endpoints and the bridge sentence that links them.

    `generator` names who proposed it (hidden from the audit); `via` is what the generator went through (a
    graph path, the shared structure), for `synthesis show`.
    """

    left: Endpoint
    right: Endpoint
    bridge: str
    generator: str
    via: str = ""

    @property
    def id(self) -> str:
        """Stable for the same endpoints and bridge, whichever generator found it."""
        ends = sorted([self.left.source_id or self.left.text, self.right.source_id or self.right.text])
        digest = hashlib.sha256("\x1f".join([*ends, self.bridge.strip().lower()]).encode()).hexdigest()
        return "syn-" + digest[:16]


@dataclass(frozen=True)
class StageResult:
    """One stage's reading of a candidate: passed or not, the figure it decided on, and why in words."""

    stage: str
    passed: bool
    figure: float | None = None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "passed": self.passed, "figure": self.figure, "note": self.note}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StageResult:
        figure = data.get("figure")
        return cls(
            str(data["stage"]),
            bool(data["passed"]),
            None if figure is None else float(figure),
            str(data["note"]),
        )


@dataclass
class Reading:
    """Everything the filter learned about one candidate, stage by stage.

    `outcome` is "rejected" (at `stages[-1].stage`), "waiting" (the offline stages passed, no judge is
    configured), "duplicate" (an earlier candidate says the same; `duplicate_of` names it, and when it
    came from another generator that counts as convergence) or "passed" (all seven).
    """

    candidate: Candidate
    stages: list[StageResult] = field(default_factory=list)
    outcome: str = "passed"
    domains: tuple[str, str] = ("", "")
    composite: float | None = None
    duplicate_of: str = ""

    @property
    def rejected_at(self) -> str:
        return self.stages[-1].stage if self.outcome == "rejected" and self.stages else ""
