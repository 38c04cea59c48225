"""`python main.py tool list|run`: call one agent tool directly, exactly as the agent loop would."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from core.agent.tool_exec import execute_call
from core.errors import UserInputError
from core.tools.toolset import Toolset
from core.types import ToolCall
from ui.cli import print_json


def list_tools(toolset: Toolset, *, as_json: bool) -> int:
    """Print each tool's name, description and argument schema."""
    specs = toolset.specs()
    if as_json:
        print_json(
            {
                "tools": [
                    {"name": s.name, "description": s.description, "parameters": s.parameters} for s in specs
                ]
            }
        )
        return 0
    for spec in specs:
        print(f"{spec.name}: {spec.description}")
        for name, schema in spec.parameters.get("properties", {}).items():
            print(f"    {name} ({schema.get('type', 'any')}): {schema.get('description', '')}")
    return 0


def _parse_args(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        raise UserInputError(f"--args is not valid JSON: {error.msg} at column {error.colno}") from None
    if not isinstance(value, dict):
        raise UserInputError('--args must be a JSON object, e.g. \'{"expression": "2+2"}\'')
    return value


def run_tool(toolset: Toolset, name: str, raw_args: str, *, as_json: bool) -> int:
    """Validate and run one tool call; `ok` false (exit 1) when it failed, with the error text."""
    call = ToolCall(id="cli", name=name, arguments=_parse_args(raw_args))
    outcome = asyncio.run(execute_call(call, toolset))
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
