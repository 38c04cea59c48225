"""`python main.py tool list|run`: every tool Daemon knows, and one call through the agent's own guards.

`tool list` shows the available tools and the unavailable ones with the reason ("needs TAVILY_API_KEY").
`tool run` passes the same guards as a call inside the agent loop (core/agent/call_guard.py): the
per-turn budget, and approval: a tool with side effects runs only with `--approve`, the user's explicit
yes. The REPL and the GUI run the calls a user approves through the same `ToolRunner`
(ui/shared/tool_runner.py).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from core.errors import UserInputError
from core.tools.catalog import ToolCatalog
from core.types import ToolCall
from ui.shared.payloads import print_json
from ui.shared.tool_runner import ToolRunner, tool_entries


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
