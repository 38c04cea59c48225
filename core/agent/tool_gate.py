"""Which tools a run offers. Large models get every tool; small local models only the ones the message asks
for, because a 135M model calls whatever it is offered ("hello" became five calculator calls)."""

from __future__ import annotations

from typing import Protocol

from core.tools.toolset import Toolset


class ToolGate(Protocol):
    """Chooses the tools to offer for one user message."""

    def select(self, message: str, toolset: Toolset) -> Toolset: ...


class OfferAll:
    """Every tool, every time (capable models decide well by themselves)."""

    def select(self, message: str, toolset: Toolset) -> Toolset:
        return toolset


class HintedToolGate:
    """Only tools whose `use_when` pattern matches the message (tools without a pattern always)."""

    def select(self, message: str, toolset: Toolset) -> Toolset:
        return toolset.filtered(lambda tool: tool.wanted_for(message))
