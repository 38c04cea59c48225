"""One tool call through the agent's own guards, outside the agent loop: `tool run`, the calls a user
approves in the REPL or the GUI, and the tool list every front end shows.

The guards are the loop's (core/agent/call_guard.py): the per-turn budget, and approval: a tool with side
effects runs only with the user's explicit yes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.agent.call_guard import CallReview, ToolPolicy
from core.agent.tool_exec import ToolOutcome, execute_call
from core.tools.catalog import ToolCatalog
from core.types import ToolCall

NEEDS_APPROVAL = "{tool} has side effects: it runs only with the user's approval (add --approve)."


@dataclass(frozen=True)
class ToolRunner:
    """Runs single tool calls for the command line and the REPL, through the agent's guards."""

    catalog: ToolCatalog
    policy: ToolPolicy

    async def run(self, call: ToolCall, *, approved: bool = False) -> ToolOutcome:
        """The outcome of `call`: an unavailable tool fails with its reason; a side-effect tool without
        `approved` fails saying it needs approval; otherwise validated and run like in the loop."""
        if (reason := self.catalog.reason_unavailable(call.name)) is not None:
            return ToolOutcome(call, False, f"{call.name} is unavailable: {reason}")
        tool = self.catalog.available.get(call.name)
        verdict = CallReview(self.policy, approved=approved).review(call, tool)
        if verdict.action == "block":
            return ToolOutcome(call, False, verdict.message)
        if verdict.action == "propose":
            return ToolOutcome(call, False, NEEDS_APPROVAL.format(tool=call.name))
        return await execute_call(call, self.catalog.available)


def tool_entries(catalog: ToolCatalog) -> list[dict[str, Any]]:
    """Every tool as `tool list --json` shows it: available ones first, then the others with why not."""
    entries: list[dict[str, Any]] = [
        {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "available": True,
            "side_effects": tool.side_effects,
        }
        for tool in catalog.available
    ]
    entries += [
        {
            "name": u.name,
            "description": u.description,
            "parameters": {},
            "available": False,
            "reason": u.reason,
        }
        for u in catalog.unavailable
    ]
    return entries
