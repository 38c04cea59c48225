"""`done`: the model ends the agent loop explicitly, handing over its final answer.

Without it a run ends when a response carries no tool call. Some models (and tool-calling fine-tunes) keep
calling tools until told to stop; `done(answer)` gives them a clean way out. The loop
(`core.agent.loop`) asks `final_answer` after every tool round: a successful `done` call ends the run with
its `answer` as the reply (exit reason "answer"), and whatever else that round called is not looked at
again. It is recognised by its function, not its name, so another tool called "done" (an MCP server's)
never ends a run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from core.errors import ToolRetry
from core.tools.base import Tool
from core.tools.toolset import Toolset
from core.types import ToolCall

DONE = "done"


def _done(answer: str) -> str:
    """Finish this turn: give the user your final, complete answer (call no other tool after this).

    Args:
        answer: the reply the user will read, complete and self-contained
    """
    if not answer.strip():
        raise ToolRetry("the answer is empty; write the reply the user should read")
    return answer


def done_tool() -> Tool:
    """The `done` tool (always offered: it has no `use_when`)."""
    return Tool.from_function(_done, name=DONE, timeout_s=5.0)


def final_answer(succeeded: Iterable[ToolCall], toolset: Toolset) -> str | None:
    """The answer of the first `done` call among a round's successful calls, or None to go on."""
    for call in succeeded:
        tool = toolset.get(call.name)
        if tool is not None and tool.fn is _done:
            return _answer(call.arguments)
    return None


def _answer(arguments: Mapping[str, Any]) -> str:
    value = arguments.get("answer")
    return value if isinstance(value, str) else ""
