"""Tool execution: validation, timeouts, retries, concurrency, and untrusted-output handling."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

import pytest

from core.agent.tool_exec import (
    ToolOutcome,
    execute_call,
    execute_calls,
    fence_outcome,
    render_value,
)
from core.errors import ToolError, ToolRetry
from core.tools.base import tool
from core.tools.builtin import calculator
from core.tools.toolset import Toolset
from core.types import ToolCall


@dataclass
class Activity:
    """What the tools did (how many ran at once, which were cut off), asserted instead of the wall clock."""

    running: int = 0
    peak: int = 0
    cancelled: list[str] = field(default_factory=list)
    returned: list[str] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)  # lets a stuck sync tool end

    def reset(self) -> None:
        self.running = self.peak = 0
        self.cancelled.clear()
        self.returned.clear()
        self.release = threading.Event()


ACTIVITY = Activity()  # the tools are module-level, so their record is too; reset for every test


@pytest.fixture(autouse=True)
def fresh_activity() -> None:
    ACTIVITY.reset()


@tool(timeout_s=0.05)
async def sleepy(seconds: float) -> str:
    """Sleep."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        ACTIVITY.cancelled.append("sleepy")
        raise
    return "woke"


@tool(timeout_s=0.05)
def sleepy_sync(seconds: float) -> str:
    """Sleep in a thread until released (a thread cannot be cancelled)."""
    ACTIVITY.release.wait(seconds)
    ACTIVITY.returned.append("sleepy_sync")
    return "woke"


@tool
async def delay_echo(text: str, seconds: float) -> str:
    """Echo after a delay."""
    ACTIVITY.running += 1
    ACTIVITY.peak = max(ACTIVITY.peak, ACTIVITY.running)
    try:
        await asyncio.sleep(seconds)
    finally:
        ACTIVITY.running -= 1
    return text


@tool
def picky(date: str) -> str:
    """Needs ISO dates."""
    if "-" not in date:
        raise ToolRetry("use an ISO date like 2024-05-01")
    return date


@tool
def refusing() -> str:
    """Always refuses."""
    raise ToolError("the folder is not approved")


@tool
def structured() -> dict:
    """Returns structured data."""
    return {"a": [1, 2], "b": None}


TOOLS = Toolset([calculator, sleepy, sleepy_sync, delay_echo, picky, refusing, structured])


async def _one(name: str, **arguments: object) -> ToolOutcome:
    return await execute_call(ToolCall("c1", name, dict(arguments)), TOOLS)


async def test_success_and_structured_output() -> None:
    outcome = await _one("calculator", expression="6 * 7")
    assert (outcome.ok, outcome.output, outcome.attempts) == (True, "42", 1)
    assert (await _one("structured")).output == '{"a": [1, 2], "b": null}'


async def test_invalid_arguments_become_an_error_text() -> None:
    outcome = await _one("calculator", expr="1+1")
    assert not outcome.ok
    assert "Invalid arguments for tool 'calculator'" in outcome.output
    assert "'expression' is a required property" in outcome.output
    assert "expr" in outcome.output  # the unexpected key is named
    wrong_type = await _one("calculator", expression=5)
    assert not wrong_type.ok and "expression: 5 is not of type 'string'" in wrong_type.output


async def test_unknown_tool_lists_available_tools() -> None:
    outcome = await _one("rm_rf")
    assert not outcome.ok
    assert outcome.output.startswith("Unknown tool 'rm_rf'. Available tools: calculator, sleepy")


async def test_async_and_sync_timeouts() -> None:
    for name in ("sleepy", "sleepy_sync"):
        outcome = await _one(name, seconds=30)
        assert not outcome.ok
        assert outcome.output == f"Tool '{name}' timed out after 0.05 s."
    assert ACTIVITY.cancelled == ["sleepy"]  # the coroutine is cut off at its timeout
    assert ACTIVITY.returned == []  # and the thread was not waited for: it is still blocked
    ACTIVITY.release.set()


async def test_tool_retry_and_tool_error_are_not_retried() -> None:
    hint = await _one("picky", date="May 1st")
    assert not hint.ok and hint.attempts == 1
    assert "asks you to call it again differently: use an ISO date like 2024-05-01" in hint.output
    refused = await _one("refusing")
    assert refused.output == "Tool 'refusing' failed: the folder is not approved"


async def test_unexpected_exceptions_are_retried_up_to_the_policy() -> None:
    attempts: list[int] = []

    @tool(retries=2)
    def flaky() -> str:
        """Fails twice."""
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("reset by peer")
        return "ok"

    @tool(retries=1)
    def broken() -> str:
        """Always fails."""
        raise ValueError("bad state")

    tools = Toolset([flaky, broken])
    good = await execute_call(ToolCall("1", "flaky", {}), tools)
    assert (good.ok, good.output, good.attempts) == (True, "ok", 3)
    bad = await execute_call(ToolCall("2", "broken", {}), tools)
    assert (bad.ok, bad.attempts) == (False, 2)
    assert bad.output == "Tool 'broken' failed: ValueError: bad state"


async def test_calls_run_concurrently_and_keep_call_order() -> None:
    calls = [
        ToolCall("a", "delay_echo", {"text": "first", "seconds": 0.2}),
        ToolCall("b", "delay_echo", {"text": "second", "seconds": 0.05}),
        ToolCall("c", "calculator", {"expression": "1+1"}),
    ]
    outcomes = await execute_calls(calls, TOOLS)
    assert ACTIVITY.peak == 2  # both delays were running at once
    assert [o.call.id for o in outcomes] == ["a", "b", "c"]
    assert [o.output for o in outcomes] == ["first", "second", "2"]


async def test_max_parallel_bounds_concurrency() -> None:
    calls = [ToolCall(str(i), "delay_echo", {"text": str(i), "seconds": 0.05}) for i in range(4)]
    await execute_calls(calls, TOOLS, max_parallel=1)
    assert ACTIVITY.peak == 1
    await execute_calls(calls, TOOLS, max_parallel=2)
    assert ACTIVITY.peak == 2


async def test_preset_errors_are_not_run() -> None:
    calls = [ToolCall("x", "calculator", {}), ToolCall("y", "calculator", {"expression": "2"})]
    outcomes = await execute_calls(calls, TOOLS, preset_errors={"x": "bad JSON"})
    assert [(o.ok, o.output) for o in outcomes] == [(False, "bad JSON"), (True, "2")]


async def test_long_output_is_truncated_keeping_head_and_tail() -> None:
    @tool
    def flood() -> str:
        """Lots of text."""
        return "HEAD" + "x" * 10_000 + "TAIL"

    outcome = await execute_call(ToolCall("1", "flood", {}), Toolset([flood]), max_output_chars=300)
    assert len(outcome.output) <= 300
    assert outcome.output.startswith("HEAD") and outcome.output.endswith("TAIL")
    assert "characters truncated" in outcome.output


def test_fence_outcome_marks_status_and_trust() -> None:
    text = fence_outcome(ToolOutcome(ToolCall("1", "calc", {}), False, "boom"))
    assert text.startswith('<tool_output tool="calc" ok="false" trust="untrusted data')
    assert "\nboom\n" in text


def test_render_value() -> None:
    assert render_value(None) == "(no output)"
    assert render_value([1, "a"]) == '[1, "a"]'
    assert render_value(3.5) == "3.5"
