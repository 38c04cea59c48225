"""What is enabled right now, in plain lines: the prompt's "active features" section (and `doctor`)."""

from __future__ import annotations

from collections.abc import Sequence

from core.ports import FactPort
from core.tools.toolset import Toolset
from knowledge.service import KnowledgeService
from memory.service import MemoryService


class Inventory:
    """Reads the live counts each time it is called (a few cheap queries; only meta questions ask)."""

    def __init__(
        self,
        models: Sequence[str],
        side_model: str | None,
        memory: MemoryService,
        facts: FactPort,
        knowledge: KnowledgeService,
        toolset: Toolset,
        *,
        idle_end_minutes: float,
    ) -> None:
        self._models, self._side = tuple(models), side_model
        self._memory, self._facts, self._knowledge, self._toolset = memory, facts, knowledge, toolset
        self._idle = idle_end_minutes

    def __call__(self) -> list[str]:
        counts = self._memory.stats()
        filled = ", ".join(f"{name} {n}" for name, n in counts.items() if n)
        facts = self._facts.list_facts()
        current = sum(1 for f in facts if f.status == "current")
        tools = ", ".join(spec.name for spec in self._toolset.specs()) or "none"
        side = self._side or "none: rewrites, summaries and session-end steps use offline heuristics"
        return [
            f"Models: {', '.join(self._models)} (the first answers by default).",
            f"Model for side jobs: {side}.",
            f"Long-term memory: {sum(counts.values())} records ({filled or 'empty'}).",
            f"Verified facts: {current} current, {len(facts) - current} superseded (kept as history).",
            f"Knowledge graph: {len(self._knowledge.graph)} entities.",
            f"Tools: {tools}.",
            f"Session-end processing: on leaving the CLI or GUI, or after {self._idle:g} idle minutes.",
        ]
