"""`done(answer)` ends the agent loop with that answer, driven by the scripted provider."""

from __future__ import annotations

from core.agent.loop import AgentRunner
from core.events import Done, RunEvent, TextDelta
from core.providers.fake import ScriptedProvider, tool_response
from core.tools.base import Tool
from core.tools.builtin import calculator
from core.tools.done import done_tool
from core.tools.toolset import Toolset
from core.types import Message, ToolCall

QUESTION = [Message("system", "You are Daemon."), Message("user", "What is 6 times 7?")]


async def _run(provider: ScriptedProvider, tools: Toolset) -> tuple[Done, list[RunEvent]]:
    events = [event async for event in AgentRunner(provider, tools).run(QUESTION)]
    assert isinstance(events[-1], Done)
    return events[-1], events


async def test_done_ends_the_run_with_its_answer() -> None:
    provider = ScriptedProvider(
        [
            tool_response(ToolCall("c1", "calculator", {"expression": "6*7"}), text="Let me compute."),
            tool_response(ToolCall("c2", "done", {"answer": "It is 42."})),
            "never asked for",
        ]
    )
    done, events = await _run(provider, Toolset([calculator, done_tool()]))
    assert len(provider.requests) == 2  # no model call after done
    assert done.answer == "It is 42." and done.exit_reason == "answer"
    assert [call["name"] for call in done.tool_calls] == ["calculator", "done"]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).endswith("It is 42.")


async def test_an_empty_done_asks_again_and_the_run_goes_on() -> None:
    provider = ScriptedProvider([tool_response(ToolCall("c1", "done", {"answer": "  "})), "It is 42."])
    done, _ = await _run(provider, Toolset([done_tool()]))
    assert done.answer == "It is 42." and done.tool_calls[0]["ok"] is False


async def test_another_tool_named_done_does_not_end_the_run() -> None:
    def finished(answer: str) -> str:
        """Someone else's tool that happens to be called done."""
        return "noted"

    lookalike = Tool.from_function(finished, name="done")
    provider = ScriptedProvider(
        [tool_response(ToolCall("c1", "done", {"answer": "early"})), "The real answer."]
    )
    done, _ = await _run(provider, Toolset([lookalike]))
    assert done.answer == "The real answer." and len(provider.requests) == 2
