"""Every tool Daemon knows, available or not: what `tool list` shows and what the agent may be offered.

A tool needs a key, a program or a configured source; when one is missing it is still listed, as an
`UnavailableTool` with the reason a user can act on ("needs TAVILY_API_KEY"), so the GUI and the CLI can
say why it is off instead of silently lacking it. Only the available tools reach the agent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.tools.base import Tool
from core.tools.toolset import Toolset


@dataclass(frozen=True)
class UnavailableTool:
    """A tool that cannot run here, and why (a sentence naming what to set or install)."""

    name: str
    description: str
    reason: str


@dataclass(frozen=True)
class ToolCatalog:
    """The tools that can run (`available`) and the ones that cannot, with their reasons."""

    available: Toolset
    unavailable: tuple[UnavailableTool, ...] = ()

    @classmethod
    def of(cls, entries: Iterable[Tool | UnavailableTool]) -> ToolCatalog:
        """Sort tool-maker output into the two groups, keeping declaration order."""
        items = tuple(entries)
        return cls(
            Toolset(e for e in items if isinstance(e, Tool)),
            tuple(e for e in items if isinstance(e, UnavailableTool)),
        )

    def extended(self, entries: Iterable[Tool | UnavailableTool]) -> ToolCatalog:
        """This catalog with `entries` added after its own (tools made over the first ones: subagents)."""
        return ToolCatalog.of([*self.available, *self.unavailable, *entries])

    def reason_unavailable(self, name: str) -> str | None:
        """Why the tool `name` cannot run, or None when it can (or is unknown)."""
        return next((u.reason for u in self.unavailable if u.name == name), None)
