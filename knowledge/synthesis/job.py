"""A synthesis run as a background task: the runner's `AgentRun` over the engine (ui/shared/background.py).

Started from the GUI, it runs beside the chat with its progress in the task list, can be cancelled from any
front end (the run stops between generators and keeps what it recorded), and a run cut off by a closed
Daemon is started again at the next start. A halted book ends the task with the halt's reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from core.agent.subagent import SubagentResult
from core.errors import UserInputError
from core.events import Progress, RunEvent
from knowledge.synthesis.engine import RunBudget, SynthesisEngine

SYNTHESIS_JOB = "synthesis"
TITLE = "Look for connections in my memory"


class SynthesisJob:
    """One bounded run of `engine` per task."""

    def __init__(self, engine: SynthesisEngine, budget: RunBudget) -> None:
        self._engine = engine
        self._budget = budget

    @property
    def budget(self) -> str:
        return f"up to {self._budget.seconds:.0f} s"

    async def run(
        self,
        task: str,
        *,
        cancel: asyncio.Event | None = None,
        progress: Callable[[RunEvent], None] | None = None,
    ) -> SubagentResult:
        def say(line: str) -> None:
            if progress is not None:
                progress(Progress("synthesis", line))

        try:
            report = await self._engine.run(self._budget, progress=say, cancel=cancel)
        except UserInputError as halted:
            return SubagentResult(str(halted), "error")
        stopped = cancel is not None and cancel.is_set()
        return SubagentResult(
            summary(report), "cancelled" if stopped else "answer", seconds=report["seconds"]
        )


def summary(report: dict[str, Any]) -> str:
    """A run's outcome in one line, for the task list and the notice."""
    found = sum(g["candidates"] for g in report["generated"].values())
    text = f"read {report['pool']} memories, {found} candidates, {report['queued']} new for your review"
    if report["waiting"]:
        text += f", {report['waiting']} waiting for a judge"
    return text + " (Tasks → Connections)."
