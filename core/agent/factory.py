"""Building an agent runner from the configuration (the composition root composes; this keeps the knobs in one
place).

Every model choice the orchestrator runs (the CLI's `ask` and chat, the GUI, the API, MCP) is built here,
so every path gets the same guards: the tool gate, the injected-instructions guardrail on tool output, and
the per-call guards (budgets, exfiltration, approval of side effects; core/agent/call_guard.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.agent.call_guard import ToolPolicy
from core.agent.compaction import Compactor
from core.agent.guardrails import InjectedInstructions
from core.agent.limits import RunLimits
from core.agent.loop import AgentRunner
from core.agent.tool_gate import StagedToolGate
from core.config import AgentConfig
from core.providers.base import ChatProvider
from core.tools.toolset import Toolset


@dataclass(frozen=True)
class AgentGuards:
    """What the composition root decides once about tools for every agent it builds.

    Attributes:
        policy: per-tool budgets and the tool groups (local, memory, web).
        judge: the fast, capable model the tool gate may ask yes/no (None: keywords and recall only).
        judge_timeout_s: the bound of that call.
    """

    policy: ToolPolicy = field(default_factory=ToolPolicy)
    judge: ChatProvider | None = None
    judge_timeout_s: float = 4.0


def build_agent(
    provider: ChatProvider,
    toolset: Toolset,
    config: AgentConfig,
    *,
    embedded: bool,
    temperature: float | None = None,
    guards: AgentGuards | None = None,
) -> AgentRunner:
    """An agent over `provider`. The embedded model calls any tool it is offered, so it is offered only the
    tools the message asks for; `temperature` overrides the configured one (best-of candidates)."""
    guards = guards or AgentGuards()
    limits = RunLimits(
        max_rounds=config.max_rounds,
        max_tool_output_chars=config.max_tool_output_chars,
        response_max_tokens=config.max_tokens,
        temperature=config.temperature if temperature is None else temperature,
    )
    gate = StagedToolGate(
        judge=guards.judge,
        narrow=embedded,
        memory_tools=guards.policy.memory_tools,
        web_tools=guards.policy.web_tools,
        timeout_s=guards.judge_timeout_s,
    )
    compactor = Compactor(threshold=config.compaction_threshold)
    # Tool output (web pages, files, memories) may carry instructions meant to hijack the model.
    return AgentRunner(
        provider,
        toolset,
        limits=limits,
        tool_output_guardrails=(InjectedInstructions(),),
        compactor=compactor,
        tool_gate=gate,
        tool_policy=guards.policy,
    )
