"""Building an agent runner from the configuration (main.py composes; this keeps the knobs in one place)."""

from __future__ import annotations

from core.agent.compaction import Compactor
from core.agent.guardrails import InjectedInstructions
from core.agent.limits import RunLimits
from core.agent.loop import AgentRunner
from core.agent.tool_gate import HintedToolGate, OfferAll
from core.config import AgentConfig
from core.providers.base import ChatProvider
from core.tools.toolset import Toolset


def build_agent(
    provider: ChatProvider,
    toolset: Toolset,
    config: AgentConfig,
    *,
    embedded: bool,
    temperature: float | None = None,
) -> AgentRunner:
    """An agent over `provider`. The embedded model calls any tool it is offered, so it is offered only the
    tools the message asks for; `temperature` overrides the configured one (best-of candidates)."""
    limits = RunLimits(
        max_rounds=config.max_rounds,
        max_tool_output_chars=config.max_tool_output_chars,
        response_max_tokens=config.max_tokens,
        temperature=config.temperature if temperature is None else temperature,
    )
    gate = HintedToolGate() if embedded else OfferAll()
    compactor = Compactor(threshold=config.compaction_threshold)
    # Tool output (web pages, files, memories) may carry instructions meant to hijack the model.
    return AgentRunner(
        provider,
        toolset,
        limits=limits,
        tool_output_guardrails=(InjectedInstructions(),),
        compactor=compactor,
        tool_gate=gate,
    )
