"""`python main.py tool list|run`: every tool Daemon knows, and one call through the agent's own guards.

`tool list` shows the available tools and the unavailable ones with the reason ("needs TAVILY_API_KEY").
`tool run` passes the same guards as a call inside the agent loop (core/agent/call_guard.py): the
per-turn budget, and approval: a tool with side effects runs only with `--approve`, the user's explicit
yes. The REPL runs the calls a user approves through the same `ToolRunner`.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from core.agent.call_guard import CallReview, ToolPolicy
from core.agent.tool_exec import ToolOutcome, execute_call
from core.errors import UserInputError
from core.tools.catalog import ToolCatalog
from core.types import ToolCall
from ui.terminal.chat import print_json

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


def list_tools(catalog: ToolCatalog, *, as_json: bool) -> int:
    """Print each tool's name, description and argument schema, and why an unavailable one is off."""
    entries = tool_entries(catalog)
    if as_json:
        print_json({"tools": entries})
        return 0
    for entry in entries:
        status = "" if entry["available"] else f"  [unavailable: {entry['reason']}]"
        approval = "  [asks for approval]" if entry.get("side_effects") else ""
        print(f"{entry['name']}: {entry['description']}{status}{approval}")
        for name, schema in entry["parameters"].get("properties", {}).items():
            print(f"    {name} ({schema.get('type', 'any')}): {schema.get('description', '')}")
    return 0


def parse_arguments(raw: str) -> dict[str, Any]:
    """`--args` as a JSON object, or UserInputError saying what is wrong."""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        raise UserInputError(f"--args is not valid JSON: {error.msg} at column {error.colno}") from None
    if not isinstance(value, dict):
        raise UserInputError('--args must be a JSON object, e.g. \'{"expression": "2+2"}\'')
    return value


def run_tool(runner: ToolRunner, name: str, raw_args: str, *, as_json: bool, approve: bool = False) -> int:
    """Run one tool call through the guards; `ok` false (exit 1) when it failed, with the error text."""
    call = ToolCall(id="cli", name=name, arguments=parse_arguments(raw_args))
    outcome = asyncio.run(runner.run(call, approved=approve))
    if as_json:
        print_json(
            {
                "ok": outcome.ok,
                "output": outcome.output if outcome.ok else "",
                "error": None if outcome.ok else outcome.output,
            }
        )
    else:
        print(outcome.output)
    return 0 if outcome.ok else 1
