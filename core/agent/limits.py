"""What stops an agent run: hard caps (`RunLimits`) and the user's cancel signal.

A run that hits a cap stops cleanly with what it has gathered. The defaults follow peers (openai-agents
stops at 10 turns, pydantic-ai at 50 requests) scaled to a local assistant: most turns need zero or one tool
round, and a loop that keeps calling tools is usually stuck. `drain` stops reading a stream when the
cancel event fires (the other cancel helpers are in core/cancel.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TypeVar

from core.errors import ConfigError
from core.types import Usage

T = TypeVar("T")


@dataclass(frozen=True)
class RunLimits:
    """Caps and knobs for one `AgentRunner.run`.

    Attributes:
        max_rounds: model calls that may ask for tools; after the last one the run wraps up.
        max_tool_calls: tool calls across the whole run; calls beyond it get an error result.
        max_parallel_tools: how many tool calls of one response run at the same time.
        max_failed_rounds: consecutive rounds in which every tool call failed before the run wraps up
            (a model that keeps sending broken calls is stuck, and re-asking forever costs tokens).
        max_tool_output_chars: tool output longer than this is truncated before the model sees it.
        max_total_tokens: stop with exit_reason "budget" once the run used this many tokens (None: no cap).
        response_max_tokens: `max_tokens` of each model call; also reserved out of the context window.
        temperature: sampling temperature of each model call.
        final_answer_on_limit: on a round or tool limit, make one last call with tools disabled so the
            answer is written by the model from what it gathered (otherwise a plain summary is built).
    """

    max_rounds: int = 6
    max_tool_calls: int = 24
    max_parallel_tools: int = 8
    max_failed_rounds: int = 3
    max_tool_output_chars: int = 8000
    max_total_tokens: int | None = None
    response_max_tokens: int = 1024
    temperature: float = 0.7
    final_answer_on_limit: bool = True

    def __post_init__(self) -> None:
        for name in (
            "max_rounds",
            "max_tool_calls",
            "max_parallel_tools",
            "max_failed_rounds",
            "max_tool_output_chars",
            "response_max_tokens",
        ):
            if getattr(self, name) < 1:
                raise ConfigError(f"agent limit {name} must be at least 1, got {getattr(self, name)}")
        if self.max_total_tokens is not None and self.max_total_tokens < 1:
            raise ConfigError(f"agent limit max_total_tokens must be positive, got {self.max_total_tokens}")

    def tool_limit_hit(self, tool_calls: int, failed_rounds: int) -> str | None:
        """The name of the tool limit the run has reached ("tool_calls", "tool_errors"), or None."""
        if tool_calls >= self.max_tool_calls:
            return "tool_calls"
        if failed_rounds >= self.max_failed_rounds:
            return "tool_errors"
        return None

    def over_token_budget(self, usage: Usage) -> bool:
        """True once the run's usage has reached `max_total_tokens`."""
        return self.max_total_tokens is not None and usage.total_tokens >= self.max_total_tokens


async def drain(queue: asyncio.Queue[str | None], cancel: asyncio.Event) -> AsyncIterator[str]:
    """Yield queued text until the producer's end marker (None) or until the cancel event fires."""
    cancelled = asyncio.ensure_future(cancel.wait())
    try:
        while True:
            getter = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({getter, cancelled}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                return
            item = getter.result()
            if item is None:
                return
            yield item
    finally:
        cancelled.cancel()
