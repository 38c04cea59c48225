"""The agent loop with native tool calling, driven by the scripted provider (no network)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

import pytest

from core.agent.limits import RunLimits
from core.agent.loop import BUDGET_NOTE, LIMIT_NOTE, AgentRunner
from core.agent.xml_protocol import FINAL_NUDGE
from core.errors import BudgetExceeded, ConfigError, ProviderError, ToolRetry
from core.events import (
    Done,
    Progress,
    RunError,
    RunEvent,
    TextDelta,
    ToolCallEnded,
    ToolCallStarted,
    UsageUpdate,
)
from core.providers.fake import ScriptedProvider, text_response, tool_response
from core.tools.base import tool
from core.tools.builtin import calculator
from core.tools.toolset import Toolset
from core.types import ChatRequest, Message, ModelResponse, StreamPart, ToolCall, Usage

QUESTION = [Message("system", "You are Daemon."), Message("user", "What is 6 times 7?")]


@dataclass
class Activity:
    """What the slow tools did: how many ran at once, which finished and which were cut off.

    Tests assert on this rather than on the wall clock, which a loaded machine stretches.
    """

    running: int = 0
    peak: int = 0
    finished: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)

    async def sleep(self, name: str, seconds: float) -> None:
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            self.cancelled.append(name)
            raise
        finally:
            self.running -= 1
        self.finished.append(name)

    def reset(self) -> None:
        self.running = self.peak = 0
        self.finished.clear()
        self.cancelled.clear()


ACTIVITY = Activity()  # the tools are module-level, so their record is too; reset for every test


@pytest.fixture(autouse=True)
def fresh_activity() -> None:
    ACTIVITY.reset()


@tool
async def slow_a(text: str) -> str:
    """Slow tool A."""
    await ACTIVITY.sleep("slow_a", 0.2)
    return f"A:{text}"


@tool
async def slow_b(text: str) -> str:
    """Slow tool B."""
    await ACTIVITY.sleep("slow_b", 0.2)
    return f"B:{text}"


@tool(timeout_s=0.05)
async def hangs() -> str:
    """Never returns in time."""
    await ACTIVITY.sleep("hangs", 30)
    return "late"


@tool
def needs_iso(date: str) -> str:
    """Wants ISO dates."""
    if "-" not in date:
        raise ToolRetry("write the date as YYYY-MM-DD")
    return f"events on {date}: dentist"


TOOLS = Toolset([calculator, slow_a, slow_b, hangs, needs_iso])


@dataclass
class SlowScripted(ScriptedProvider):
    """Streams like ScriptedProvider but pauses between parts, as a real network stream does."""

    delay: float = 0.01

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        async for part in super().stream(request):
            await asyncio.sleep(self.delay)
            yield part


async def collect(
    runner: AgentRunner, messages: Sequence[Message] = QUESTION, *, cancel: asyncio.Event | None = None
) -> list[RunEvent]:
    events = [event async for event in runner.run(messages, cancel=cancel)]
    assert isinstance(events[-1], Done | RunError)
    assert sum(isinstance(e, Done | RunError) for e in events) == 1
    return events


def done_of(events: list[RunEvent]) -> Done:
    assert isinstance(events[-1], Done), events[-1]
    return events[-1]


def call(call_id: str, name: str, **arguments: object) -> ToolCall:
    return ToolCall(call_id, name, dict(arguments))


async def test_answer_without_tools_streams_text() -> None:
    provider = ScriptedProvider(["Hello! Nothing to look up today."])
    events = await collect(AgentRunner(provider, TOOLS))
    provider.assert_complete()
    done = done_of(events)
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1 and "".join(deltas) == done.answer == "Hello! Nothing to look up today."
    assert done.exit_reason == "answer" and done.tool_calls == () and done.model == "scripted"
    assert done.usage == text_response(done.answer).usage
    assert isinstance(events[0], Progress)
    assert [e for e in events if isinstance(e, UsageUpdate)][0].total == done.usage
    assert [s.name for s in provider.requests[0].tools] == list(TOOLS.names())


async def test_one_tool_round() -> None:
    provider = ScriptedProvider(
        [tool_response(call("c1", "calculator", expression="6*7"), text="Let me compute."), "It is 42."]
    )
    events = await collect(AgentRunner(provider, TOOLS), cancel=asyncio.Event())
    provider.assert_complete()
    done = done_of(events)
    assert done.answer == "It is 42." and done.exit_reason == "answer"
    assert done.tool_calls == (
        {"name": "calculator", "arguments": {"expression": "6*7"}, "ok": True, "output": "42"},
    )
    assert done.usage == Usage(20, 5 + len("It is 42.") // 4)
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    ended = [e for e in events if isinstance(e, ToolCallEnded)]
    assert started[0].call.id == "c1" and ended[0].ok and ended[0].output == "42"
    second = provider.requests[1].messages
    assert second[-2].role == "assistant" and second[-2].tool_calls[0].id == "c1"
    assert second[-1].role == "tool" and second[-1].tool_call_id == "c1" and second[-1].name == "calculator"
    assert (
        second[-1].content.startswith('<tool_output tool="calculator" ok="true"')
        and "\n42\n" in second[-1].content
    )


async def test_input_messages_are_not_modified() -> None:
    messages = list(QUESTION)
    provider = ScriptedProvider([tool_response(call("c1", "calculator", expression="1")), "1"])
    await collect(AgentRunner(provider, TOOLS), messages)
    assert messages == QUESTION


async def test_parallel_tool_calls_run_concurrently_in_order() -> None:
    provider = ScriptedProvider(
        [tool_response(call("a", "slow_a", text="x"), call("b", "slow_b", text="y")), "done"]
    )
    events = await collect(AgentRunner(provider, TOOLS))
    assert ACTIVITY.peak == 2  # both were running at once
    provider.assert_complete()
    ended = [e for e in events if isinstance(e, ToolCallEnded)]
    assert [(e.call.id, e.output) for e in ended] == [("a", "A:x"), ("b", "B:y")]
    tool_messages = [m for m in provider.requests[1].messages if m.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == ["a", "b"]
    assert [r["output"] for r in done_of(events).tool_calls] == ["A:x", "B:y"]


async def test_invalid_arguments_go_back_and_the_model_recovers() -> None:
    provider = ScriptedProvider(
        [
            tool_response(call("c1", "calculator", expr="6*7")),
            tool_response(call("c2", "calculator", expression="6*7")),
            "42.",
        ]
    )
    events = await collect(AgentRunner(provider, TOOLS))
    provider.assert_complete()
    ended = [e for e in events if isinstance(e, ToolCallEnded)]
    assert [e.ok for e in ended] == [False, True]
    assert "Invalid arguments for tool 'calculator'" in ended[0].output
    assert "Invalid arguments" in provider.requests[1].messages[-1].content
    assert done_of(events).answer == "42."


async def test_unknown_tool_is_reported_to_the_model() -> None:
    provider = ScriptedProvider([tool_response(call("c1", "delete_everything")), "Sorry, I cannot do that."])
    events = await collect(AgentRunner(provider, TOOLS))
    provider.assert_complete()
    ended = [e for e in events if isinstance(e, ToolCallEnded)][0]
    assert not ended.ok and ended.output.startswith("Unknown tool 'delete_everything'")
    assert "Unknown tool" in provider.requests[1].messages[-1].content
    assert done_of(events).exit_reason == "answer"


async def test_tool_timeout_is_a_result_not_a_crash() -> None:
    provider = ScriptedProvider([tool_response(call("c1", "hangs")), "The tool was too slow."])
    events = await collect(AgentRunner(provider, TOOLS))
    assert ACTIVITY.cancelled == ["hangs"] and ACTIVITY.finished == []  # cut off, not waited for
    provider.assert_complete()
    ended = [e for e in events if isinstance(e, ToolCallEnded)][0]
    assert ended.output == "Tool 'hangs' timed out after 0.05 s."
    assert done_of(events).tool_calls[0]["ok"] is False


async def test_tool_retry_hint_leads_to_a_better_call() -> None:
    provider = ScriptedProvider(
        [
            tool_response(call("c1", "needs_iso", date="May 1")),
            tool_response(call("c2", "needs_iso", date="2024-05-01")),
            "You have the dentist.",
        ]
    )
    events = await collect(AgentRunner(provider, TOOLS))
    provider.assert_complete()
    assert "write the date as YYYY-MM-DD" in provider.requests[1].messages[-1].content
    records = done_of(events).tool_calls
    assert [r["ok"] for r in records] == [False, True]
    assert records[1]["output"] == "events on 2024-05-01: dentist"


async def test_max_rounds_ends_with_a_final_call_without_tools() -> None:
    provider = ScriptedProvider(
        [
            tool_response(call("c1", "calculator", expression="1+1")),
            tool_response(call("c2", "calculator", expression="2+2")),
            "So far: 2 and 4.",
        ]
    )
    events = await collect(AgentRunner(provider, TOOLS, RunLimits(max_rounds=2)))
    provider.assert_complete()
    done = done_of(events)
    assert (done.exit_reason, done.answer, done.extra["limit"]) == (
        "max_rounds",
        "So far: 2 and 4.",
        "rounds",
    )
    final = provider.requests[2]
    assert final.tool_choice == "none" and final.tools  # tools stay declared, but may not be used
    assert final.messages[-1] == Message("user", FINAL_NUDGE)
    assert len(done.tool_calls) == 2


async def test_max_rounds_without_final_call_summarises_results() -> None:
    provider = ScriptedProvider([tool_response(call("c1", "calculator", expression="20+22"))])
    limits = RunLimits(max_rounds=1, final_answer_on_limit=False)
    done = done_of(await collect(AgentRunner(provider, TOOLS, limits)))
    provider.assert_complete()
    assert done.exit_reason == "max_rounds"
    assert done.answer.startswith(LIMIT_NOTE) and "calculator: 42" in done.answer


async def test_tool_call_limit_refuses_extra_calls_then_wraps_up() -> None:
    provider = ScriptedProvider(
        [
            tool_response(call("a", "calculator", expression="1"), call("b", "calculator", expression="2")),
            "Only one calculation ran.",
        ]
    )
    events = await collect(AgentRunner(provider, TOOLS, RunLimits(max_tool_calls=1)))
    provider.assert_complete()
    ended = [e for e in events if isinstance(e, ToolCallEnded)]
    assert [e.ok for e in ended] == [True, False] and "limit of 1 tool calls" in ended[1].output
    done = done_of(events)
    assert (done.exit_reason, done.extra["limit"]) == ("max_rounds", "tool_calls")


async def test_repeated_failing_rounds_stop_the_loop() -> None:
    provider = ScriptedProvider(
        [tool_response(call("a", "nope")), tool_response(call("b", "nope")), "I could not use the tools."]
    )
    done = done_of(await collect(AgentRunner(provider, TOOLS, RunLimits(max_failed_rounds=2))))
    provider.assert_complete()
    assert (done.exit_reason, done.extra["limit"]) == ("max_rounds", "tool_errors")


async def test_cancel_mid_stream_returns_partial_text() -> None:
    text = "This is a long answer that streams in many small pieces."
    provider = SlowScripted([text], chunk_size=4)
    cancel = asyncio.Event()
    events: list[RunEvent] = []
    async for event in AgentRunner(provider, TOOLS).run(QUESTION, cancel=cancel):
        events.append(event)
        if isinstance(event, TextDelta) and len(events) >= 3:
            cancel.set()
    provider.assert_complete()
    done = done_of(events)
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert done.exit_reason == "cancelled"
    assert done.answer == shown and 0 < len(shown) < len(text) and text.startswith(shown)


async def test_cancel_between_rounds_skips_the_next_model_call() -> None:
    provider = ScriptedProvider([tool_response(call("c1", "calculator", expression="1"))])
    cancel = asyncio.Event()
    events: list[RunEvent] = []
    async for event in AgentRunner(provider, TOOLS).run(QUESTION, cancel=cancel):
        events.append(event)
        if isinstance(event, ToolCallEnded):
            cancel.set()
    provider.assert_complete()
    done = done_of(events)
    assert done.exit_reason == "cancelled" and len(done.tool_calls) == 1


async def test_cancel_while_tools_run() -> None:
    provider = ScriptedProvider([tool_response(call("a", "slow_a", text="x"))])
    cancel = asyncio.Event()
    asyncio.get_running_loop().call_later(0.05, cancel.set)
    done = done_of(await collect(AgentRunner(provider, TOOLS), cancel=cancel))
    assert ACTIVITY.cancelled == ["slow_a"] and ACTIVITY.finished == []  # stopped mid-tool, not after it
    assert done.exit_reason == "cancelled" and done.tool_calls == ()


async def test_task_cancellation_propagates_without_yielding_more_events() -> None:
    provider = SlowScripted(["A fairly long answer streaming slowly to the user."], chunk_size=2, delay=0.02)
    events: list[RunEvent] = []

    async def consume() -> None:
        async for event in AgentRunner(provider, TOOLS).run(QUESTION):
            events.append(event)

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert any(isinstance(e, TextDelta) for e in events)
    assert not any(isinstance(e, (Done, RunError)) for e in events)


async def test_budget_exceeded_is_a_clean_exit() -> None:
    provider = ScriptedProvider([BudgetExceeded("monthly budget reached")])
    done = done_of(await collect(AgentRunner(provider, TOOLS)))
    provider.assert_complete()
    assert done.exit_reason == "budget" and done.answer == BUDGET_NOTE


async def test_token_cap_stops_before_the_next_round() -> None:
    provider = ScriptedProvider([tool_response(call("c1", "calculator", expression="1"), text="Checking.")])
    done = done_of(await collect(AgentRunner(provider, TOOLS, RunLimits(max_total_tokens=10))))
    provider.assert_complete()
    assert done.exit_reason == "budget" and done.answer == f"Checking.\n\n{BUDGET_NOTE}"
    assert len(done.tool_calls) == 1


async def test_provider_error_becomes_run_error() -> None:
    provider = ScriptedProvider([ProviderError("the model server is unreachable", retryable=True)])
    events = await collect(AgentRunner(provider, TOOLS))
    provider.assert_complete()
    assert events[-1] == RunError("the model server is unreachable", kind="provider")


async def test_truncated_stream_is_an_error_not_an_answer() -> None:
    provider = ScriptedProvider(["half an ans"], truncate_stream=True)
    events = await collect(AgentRunner(provider, TOOLS))
    assert isinstance(events[-1], RunError) and events[-1].kind == "provider"


async def test_unexpected_exception_is_a_generic_run_error() -> None:
    def explode(request: ChatRequest) -> ModelResponse:
        raise RuntimeError("secret internal detail")

    events = await collect(AgentRunner(ScriptedProvider([explode]), TOOLS))
    assert isinstance(events[-1], RunError) and events[-1].kind == "internal"
    assert "secret" not in events[-1].message


async def test_plain_chat_without_tools_sends_no_tool_specs() -> None:
    provider = ScriptedProvider(["hi"])
    done = done_of(await collect(AgentRunner(provider)))
    assert done.answer == "hi" and provider.requests[0].tools == ()
    assert provider.requests[0].max_tokens == RunLimits().response_max_tokens


def test_limits_are_validated() -> None:
    with pytest.raises(ConfigError):
        RunLimits(max_rounds=0)
    with pytest.raises(ConfigError):
        RunLimits(max_total_tokens=0)
