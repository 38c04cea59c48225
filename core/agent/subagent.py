"""A subagent: an agent with its own instructions, tool allowlist and budget, run as one tool call of the
main agent (`ask_<name>`) or as the body of a background task.

Its tools are the allowlisted ones of the app's toolset, and the call guard refuses any other name it asks
for (core/agent/call_guard.py), so a prompt-injected subagent cannot reach a tool it was not given. Its
budget: model rounds and tokens (the loop's own limits), wall-clock time and money (watched here: the run
is cancelled when either runs out, and ends with what it gathered). Its trace is kept like a turn's, under
the id its result names (`trace show sub-…`).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from core.agent.call_guard import ToolPolicy
from core.agent.limits import RunLimits
from core.agent.loop import AgentRunner
from core.errors import ToolError
from core.events import Done, RunError, RunEvent, UsageUpdate
from core.providers.base import ChatProvider
from core.tools.base import Tool
from core.tools.toolset import Toolset
from core.tracing import RunSpans, TraceLog, TurnTrace
from core.types import Message, Usage

Progress = Callable[[RunEvent], None]


@dataclass(frozen=True)
class SubagentSpec:
    """What a subagent is: its name, instructions, the tools it may use and its budget."""

    name: str
    instructions: str
    tools: tuple[str, ...] = ()
    max_rounds: int = 6
    max_tokens: int = 30_000
    timeout_s: float = 300.0
    max_usd: float | None = None


@dataclass(frozen=True)
class SubagentResult:
    """How a subagent run ended: its answer, why it stopped, what it used and where its trace is."""

    answer: str
    exit_reason: str  # "answer", "max_rounds", "budget", "time", "money", "cancelled", "error"
    usage: Usage = field(default_factory=Usage)
    tool_calls: tuple[dict[str, object], ...] = ()
    trace_id: str = ""
    seconds: float = 0.0


class Subagent:
    """Runs one spec over the app's provider and tools (only its allowlisted ones reach it)."""

    def __init__(
        self,
        spec: SubagentSpec,
        provider: ChatProvider,
        tools: Toolset,
        policy: ToolPolicy,
        *,
        traces: TraceLog | None = None,
    ) -> None:
        allowed = frozenset(spec.tools)
        self.spec = spec
        self._runner = AgentRunner(
            provider,
            tools.filtered(lambda t: t.name in allowed),
            RunLimits(max_rounds=spec.max_rounds, max_total_tokens=spec.max_tokens),
            tool_policy=replace(policy, allowed_tools=allowed),
        )
        self._traces = traces

    async def run(
        self, task: str, *, cancel: asyncio.Event | None = None, progress: Progress | None = None
    ) -> SubagentResult:
        """Do `task` within the budget; `progress` sees every event as it happens."""
        cancel = cancel or asyncio.Event()
        trace = TurnTrace(f"sub-{uuid.uuid4().hex[:12]}", f"subagent:{self.spec.name}")
        spans, started = RunSpans(trace), time.monotonic()
        messages = [Message("system", self.spec.instructions), Message("user", task)]
        stopped: list[str] = []
        done: Done | None = None
        failure = ""

        async def consume() -> None:
            nonlocal done, failure
            async for event in self._runner.run(messages, cancel=cancel):
                spans.observe(event)
                if progress is not None:
                    progress(event)
                if isinstance(event, UsageUpdate) and self._over_money(event.total):
                    stopped.append("money")
                    cancel.set()
                elif isinstance(event, Done):
                    done = event
                elif isinstance(event, RunError):
                    failure = event.message

        try:
            async with asyncio.timeout(self.spec.timeout_s):
                await consume()
        except TimeoutError:
            stopped.append("time")
        result = self._result(done, failure, stopped, trace.turn_id, time.monotonic() - started)
        # Like a turn's trace: timings and counts, not the words (the task may quote the user's memory).
        trace.record(
            "turn", trace.started, result.seconds * 1000, outcome=result.exit_reason, task_chars=len(task)
        )
        if self._traces is not None:
            self._traces.write(trace)
        return result

    @property
    def budget(self) -> str:
        """The budget in words: "up to 8 rounds, 40000 tokens, 600 s, $0.50"."""
        spec = self.spec
        money = f", ${spec.max_usd:.2f}" if spec.max_usd is not None else ""
        return f"up to {spec.max_rounds} rounds, {spec.max_tokens} tokens, {spec.timeout_s:.0f} s{money}"

    def _over_money(self, total: Usage) -> bool:
        return self.spec.max_usd is not None and total.cost_usd >= self.spec.max_usd

    def _result(
        self, done: Done | None, failure: str, stopped: list[str], trace_id: str, seconds: float
    ) -> SubagentResult:
        if done is None:
            reason = stopped[0] if stopped else "error"
            return SubagentResult(
                failure or f"stopped ({reason}) before any answer", reason, Usage(), (), trace_id, seconds
            )
        reason = stopped[0] if stopped else done.exit_reason
        return SubagentResult(done.answer, reason, done.usage, tuple(done.tool_calls), trace_id, seconds)

    def as_tool(self) -> Tool:
        """`ask_<name>`: the main agent hands this subagent a task and reads its answer."""
        spec = self.spec

        async def ask(task: str) -> str:
            result = await self.run(task)
            if result.exit_reason == "error":
                raise ToolError(f"the {spec.name} subagent failed: {result.answer}")
            note = "" if result.exit_reason == "answer" else f" (stopped: {result.exit_reason})"
            return f"{result.answer}{note}\n[{spec.name} subagent, trace {result.trace_id}]"

        purpose = spec.instructions.strip().split(". ")[0].rstrip(".")
        description = (
            f"Hand a task to the {spec.name} subagent ({purpose}); it may use "
            f"{', '.join(spec.tools) or 'no tools'} and answers with what it found."
        )
        schema = {
            "type": "object",
            "properties": {"task": {"type": "string", "description": "what the subagent should do"}},
            "required": ["task"],
        }
        return Tool(f"ask_{spec.name}", description, schema, ask, timeout_s=spec.timeout_s + 30)
