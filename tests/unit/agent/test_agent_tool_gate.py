"""The tool gate: keywords → a graph entity with a recall question → a fast model's yes/no, else no tools."""

from __future__ import annotations

import asyncio

import pytest

from core.agent.loop import AgentRunner
from core.agent.tool_gate import HintedToolGate, OfferAll, StagedToolGate
from core.agent.turn_signals import TurnSignals, with_signals
from core.events import Done
from core.providers.base import ProviderProfile
from core.providers.fake import ScriptedProvider
from core.tools.base import Tool
from core.tools.builtin import builtin_toolset
from core.tools.toolset import Toolset
from core.types import ChatRequest, Message, ModelResponse

TINY = ProviderProfile(native_tools=False, json_schema=True, local=True, context_window=2048)
MEMORY_HINT = r"\b(remember|recall)\b"


def _tool(name: str, use_when: str | None = None) -> Tool:
    return Tool(
        name, f"The {name} tool.", {"type": "object", "properties": {}}, lambda: name, use_when=use_when
    )


TOOLS = builtin_toolset().merged(
    [_tool("search_memory", MEMORY_HINT), _tool("web_search", r"\b(search the web|online|latest)\b")]
)
RECALL = TurnSignals(intent="factual_recall", speech_act="question", entities=("Priya",))


def gate(judge: ScriptedProvider | None = None, *, narrow: bool = False) -> StagedToolGate:
    return StagedToolGate(
        judge, narrow=narrow, memory_tools=frozenset({"search_memory"}), web_tools=frozenset({"web_search"})
    )


def offered(
    message: str,
    signals: TurnSignals | None = None,
    *,
    judge: ScriptedProvider | None = None,
    narrow: bool = False,
) -> tuple[tuple[str, ...], str]:
    decision = asyncio.run(gate(judge, narrow=narrow).decide(message, TOOLS, signals))
    return decision.toolset.names(), decision.stage


def test_keywords_open_the_gate_narrow_offers_only_the_matched_tools() -> None:
    assert offered("what is 17 + 25?", narrow=True) == (("calculator",), "keywords")
    assert offered("What time is it in Tokyo?", narrow=True) == (("current_time",), "keywords")
    assert offered("what is 17 + 25?") == (TOOLS.names(), "keywords")  # capable models choose among all


def test_without_keywords_signals_or_judge_no_tool_loop_is_entered() -> None:
    assert offered("hello") == ((), "none")
    assert offered("tell me a story about a dragon", TurnSignals(intent="creative_exploration")) == (
        (),
        "none",
    )


def test_a_recall_question_naming_a_graph_entity_offers_memory_search() -> None:
    assert offered("where does Priya live these days?", RECALL) == (("search_memory",), "recall")


@pytest.mark.parametrize(
    "signals",
    [
        TurnSignals(
            intent="factual_recall", speech_act="statement", entities=("Priya",)
        ),  # telling, not asking
        TurnSignals(intent="factual_recall", speech_act="question", entities=()),  # no known entity
        TurnSignals(intent="technical_help", speech_act="question", entities=("Priya",)),  # not recalling
    ],
)
def test_the_recall_stage_needs_all_three_signals(signals: TurnSignals) -> None:
    assert offered("where does Priya live these days?", signals) == ((), "none")


def test_memory_search_wins_over_web_search_while_the_user_is_recalling() -> None:
    names, stage = offered("search the web: what did Priya tell me about her latest trip?", RECALL)
    assert stage == "keywords" and "search_memory" in names and "web_search" not in names
    names, _ = offered("search the web for the latest Python release")  # not recalling: the web stays
    assert "web_search" in names


def test_the_fast_model_decides_when_the_cheap_stages_do_not() -> None:
    yes, no = ScriptedProvider(["Yes."]), ScriptedProvider(["no"])
    assert offered("how tall is the Eiffel tower", judge=yes) == (TOOLS.names(), "model")
    assert offered("how tall is the Eiffel tower", judge=no) == ((), "none")
    asked = yes.requests[0]
    assert asked.max_tokens <= 4 and "web_search" in asked.messages[0].content
    assert asked.messages[-1].content == "how tall is the Eiffel tower"


def test_the_fast_model_is_not_asked_when_keywords_already_decided() -> None:
    judge = ScriptedProvider([])  # any call would fail the test
    assert offered("what is 2 + 2?", judge=judge)[1] == "keywords"
    assert judge.requests == []


def test_a_failing_or_late_judge_counts_as_no() -> None:
    from core.errors import ProviderError

    assert offered("how tall is the Eiffel tower", judge=ScriptedProvider([ProviderError("down")])) == (
        (),
        "none",
    )


async def test_a_slow_judge_is_cut_off_by_the_timeout() -> None:
    class Slow(ScriptedProvider):
        async def complete(self, request: ChatRequest) -> ModelResponse:
            await asyncio.sleep(30)
            raise AssertionError("not reached")

    slow = StagedToolGate(Slow([]), timeout_s=0.05)
    decision = await slow.decide("how tall is the Eiffel tower", TOOLS)
    assert decision.stage == "none"


def test_offer_all_and_hinted_gates_keep_their_meaning() -> None:
    assert (
        asyncio.run(OfferAll().decide("hello", builtin_toolset())).toolset.names()
        == builtin_toolset().names()
    )
    assert asyncio.run(HintedToolGate().decide("hello", builtin_toolset())).toolset.names() == ()


async def test_the_runner_reads_the_turn_signals_and_records_the_stage() -> None:
    provider = ScriptedProvider(["She lives in Lisbon."])
    runner = AgentRunner(provider, TOOLS, tool_gate=gate())
    messages = [Message("user", "where does Priya live these days?")]
    events = [e async for e in with_signals(runner.run(messages), RECALL)]
    assert [t.name for t in provider.requests[0].tools] == ["search_memory"]
    done = events[-1]
    assert isinstance(done, Done) and done.extra["tool_gate"] == "recall"


async def test_a_closed_gate_sends_no_tool_schemas_at_all() -> None:
    provider = ScriptedProvider(["Hi! How can I help?"], profile=TINY)
    runner = AgentRunner(provider, builtin_toolset(), tool_gate=gate(narrow=True))
    events = [e async for e in runner.run([Message("user", "hello")])]
    provider.assert_complete()
    request = provider.requests[0]
    assert request.tools == () and request.response_schema is None  # no tool protocol at all
    done = events[-1]
    assert (
        isinstance(done, Done) and done.answer == "Hi! How can I help?" and done.extra["tool_gate"] == "none"
    )


async def test_tiny_model_gets_the_constrained_tool_call_when_the_message_needs_a_tool() -> None:
    provider = ScriptedProvider(
        ['{"tool": "calculator", "arguments": {"expression": "17 + 25"}}', '{"answer": "It is 42."}'],
        profile=TINY,
    )
    runner = AgentRunner(provider, builtin_toolset(), tool_gate=gate(narrow=True))
    events = [e async for e in runner.run([Message("user", "what is 17 + 25?")])]
    provider.assert_complete()
    assert provider.requests[0].response_schema is not None
    done = events[-1]
    assert isinstance(done, Done) and done.answer == "It is 42."
    assert [(c["name"], c["output"]) for c in done.tool_calls] == [("calculator", "42")]


async def test_a_run_budget_shortens_replies_but_never_lengthens_them() -> None:
    from core.agent.limits import RunLimits

    provider = ScriptedProvider(["short", "capped"], profile=TINY)
    runner = AgentRunner(provider, limits=RunLimits(response_max_tokens=400))
    [_ async for _ in runner.run([Message("user", "hi")], max_tokens=120)]
    [_ async for _ in runner.run([Message("user", "hi")], max_tokens=5000)]
    assert [r.max_tokens for r in provider.requests] == [120, 400]


def test_toolset_of_the_tests_is_what_the_gate_sees() -> None:
    assert isinstance(TOOLS, Toolset) and "search_memory" in TOOLS


async def test_a_note_from_daemon_naming_a_tool_offers_it_whatever_the_stages_say() -> None:
    from core.agent.tool_gate import requested_in_notes

    note = "Before answering, call the `search_memory` tool with a query."
    messages = [
        Message("system", "ctx mentions `web_search`"),
        Message("system", note),
        Message("user", "hello"),
    ]
    decision = requested_in_notes(messages, TOOLS)
    assert decision is not None and decision.toolset.names() == ("search_memory",)
    assert requested_in_notes(messages[:1] + messages[2:], TOOLS) is None  # the context itself asks nothing
    provider = ScriptedProvider(["fine"])
    [_ async for _ in AgentRunner(provider, TOOLS, tool_gate=gate()).run(messages)]
    assert [t.name for t in provider.requests[0].tools] == ["search_memory"]
