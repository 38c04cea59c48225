"""Subagents and background tasks: the configured subagents over the app's tools and main provider, the
runner over the ledger, and the tools that reach them."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.agent.call_guard import ToolPolicy
    from core.agent.subagent import Subagent
    from core.config import AppConfig
    from core.orchestrator import Orchestrator
    from core.providers.base import ChatProvider
    from core.tools.base import Tool
    from core.tools.catalog import ToolCatalog, UnavailableTool
    from core.tracing import TraceLog
    from knowledge.synthesis.engine import SynthesisEngine
    from memory.tasks import TaskStore
    from ui.shared.background import BackgroundRunner

NEEDS_MODEL = "needs a connected model (the built-in one cannot use tools)"
BACKGROUND_SESSION = "background-tasks"  # the journal session results are written in


def build_subagents(
    config: AppConfig,
    provider: ChatProvider | None,
    catalog: ToolCatalog,
    policy: ToolPolicy,
    traces: TraceLog | None,
) -> dict[str, Subagent]:
    """Every configured subagent over `provider` (none without one)."""
    if provider is None:
        return {}
    from core.agent.subagent import Subagent, SubagentSpec

    return {
        name: Subagent(
            SubagentSpec(name, c.instructions, c.tools, c.max_rounds, c.max_tokens, c.timeout_s, c.max_usd),
            provider,
            catalog.available,
            policy,
            traces=traces,
        )
        for name, c in config.subagents.items()
    }


def open_background(
    config: AppConfig,
    subagents: dict[str, Subagent],
    stack: ExitStack,
    *,
    synthesis: SynthesisEngine | None = None,
) -> BackgroundRunner:
    """The runner over `background.sqlite3` (started by the front ends that serve; closed with `stack`):
    the subagents, and synthesis runs as a job of its own."""
    from knowledge.synthesis.engine import RunBudget
    from knowledge.synthesis.job import SYNTHESIS_JOB, SynthesisJob
    from memory.background import BACKGROUND_FILE, BackgroundLedger
    from ui.shared.background import BackgroundRunner

    ledger = BackgroundLedger(config.data_dir / BACKGROUND_FILE)
    stack.callback(ledger.close)
    jobs = {}
    if synthesis is not None:
        settings = config.synthesis
        budget = RunBudget(seconds=settings.run_seconds, candidates=settings.candidates_per_generator)
        jobs[SYNTHESIS_JOB] = SynthesisJob(synthesis, budget)
    runner = BackgroundRunner(ledger, subagents, jobs=jobs, max_running=config.tasks.max_background)
    stack.callback(runner.close)  # before the ledger: tasks under way go back to the queue
    return runner


def agent_tools(
    runner: BackgroundRunner, subagents: dict[str, Subagent], default: str
) -> Sequence[Tool | UnavailableTool]:
    """`ask_NAME` per subagent and the background task tools; unavailable, with why, without a model."""
    from core.tools.background_tools import BACKGROUND_TOOL_NAMES, background_tools
    from core.tools.catalog import UnavailableTool

    if not subagents:
        about = "Hand long work to a subagent in the background."
        return [UnavailableTool(name, about, NEEDS_MODEL) for name in sorted(BACKGROUND_TOOL_NAMES)]
    return [*(s.as_tool() for s in subagents.values()), *background_tools(runner, default)]


def results_to_memory_and_front_ends(
    runner: BackgroundRunner, orchestrator: Orchestrator, tasks: TaskStore
) -> None:
    """An ended task's result is journalled and indexed (memory finds it later) and announced in every
    open front end (the task book's notices)."""
    from core.agent.subagent import SubagentResult
    from knowledge.synthesis.job import SYNTHESIS_JOB
    from memory.background import BackgroundTask

    async def done(task: BackgroundTask, result: SubagentResult | None) -> None:
        if task.agent == SYNTHESIS_JOB:  # Daemon's own work, not a conversation: said, not journalled
            outcome = result.answer if result is not None else task.error or task.state
            tasks.announce(f"Connections: {outcome}", origin="background")
            return
        if task.state == "done" and result is not None:
            await orchestrator.record_exchange(
                BACKGROUND_SESSION,
                f"Background task: {task.prompt}",
                result.answer,
                model=f"background:{task.agent}",
            )
            head = " ".join(result.answer.split())[:240]
            tasks.announce(f"Background task done: {task.title} — {head}", origin="background")
        else:
            why = task.error or task.state
            tasks.announce(f"Background task {task.state}: {task.title} ({why})", origin="background")

    runner.when_done(done)
