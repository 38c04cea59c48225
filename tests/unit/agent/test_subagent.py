"""Subagents: only the allowlisted tools run (a call to any other is refused and the model told), the
budget stops a run (time, money), the trace is kept, and the main agent calls one as a tool."""

from __future__ import annotations

import asyncio
from pathlib import Path

from core.agent.call_guard import ToolPolicy
from core.agent.subagent import Subagent, SubagentSpec
from core.providers.fake import ScriptedProvider, text_response, tool_response
from core.tools.base import Tool
from core.tools.toolset import Toolset
from core.tracing import TraceLog
from core.types import ModelResponse, ToolCall, Usage

WRITTEN: list[str] = []


def _tools() -> Toolset:
    def search(query: str) -> str:
        """Search the user's memory."""
        return f"found: {query}"

    def save_note(text: str) -> str:
        """Write a note to a file."""
        WRITTEN.append(text)
        return "saved"

    async def slow(seconds: float) -> str:
        """Wait."""
        await asyncio.sleep(seconds)
        return "waited"

    return Toolset([Tool.from_function(search), Tool.from_function(save_note), Tool.from_function(slow)])


RESEARCHER = SubagentSpec("researcher", "Find things in the user's memory.", tools=("search", "slow"))


async def test_a_subagent_cannot_use_a_tool_outside_its_allowlist(tmp_path: Path) -> None:
    WRITTEN.clear()
    provider = ScriptedProvider(
        [
            tool_response(
                ToolCall("a", "save_note", {"text": "exfiltrate"}), ToolCall("b", "search", {"query": "Jo"})
            ),
            text_response("Jo lives in Lyon."),
        ]
    )
    log = TraceLog(tmp_path / "traces")
    result = await Subagent(RESEARCHER, provider, _tools(), ToolPolicy(), traces=log).run(
        "where does Jo live?"
    )
    assert WRITTEN == []  # the save_note call never ran
    read_back = provider.requests[1].messages
    refused = [m.content for m in read_back if "save_note" in m.content and "Not run" in m.content]
    assert refused and "may use (search, slow)" in refused[0]
    assert "found: Jo" in "\n".join(m.content for m in read_back)
    assert result.answer == "Jo lives in Lyon." and result.exit_reason == "answer"
    trace = log.find(result.trace_id)
    assert trace is not None and {s["name"] for s in trace["spans"]} >= {"model.call", "tool.search", "turn"}


async def test_the_time_budget_stops_a_run_and_says_so() -> None:
    spec = SubagentSpec("researcher", "Find things.", tools=("slow",), timeout_s=0.3)
    provider = ScriptedProvider([tool_response(ToolCall("a", "slow", {"seconds": 5}))])
    result = await Subagent(spec, provider, _tools(), ToolPolicy()).run("wait")
    assert result.exit_reason == "time" and result.seconds < 3


async def test_the_money_budget_stops_a_run_after_the_call_that_spent_it() -> None:
    spec = SubagentSpec("researcher", "Find things.", tools=("search",), max_usd=0.01)
    costly = ModelResponse(
        text="",
        tool_calls=(ToolCall("a", "search", {"query": "x"}),),
        usage=Usage(10, 5, 0.02),
        finish_reason="tool_calls",
    )
    provider = ScriptedProvider([costly, text_response("never asked")])
    result = await Subagent(spec, provider, _tools(), ToolPolicy()).run("search")
    assert result.exit_reason == "money" and provider.remaining == 1


async def test_the_main_agent_hands_a_task_to_the_subagent_as_a_tool(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [tool_response(ToolCall("a", "search", {"query": "bees"})), text_response("Bees: yes.")]
    )
    tool = Subagent(RESEARCHER, provider, _tools(), ToolPolicy()).as_tool()
    assert tool.name == "ask_researcher" and "may use search, slow" in tool.description
    output = await tool.fn(task="do I keep bees?")
    assert output.startswith("Bees: yes.\n[researcher subagent, trace sub-")
