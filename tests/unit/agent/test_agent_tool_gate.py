"""Tool gating: small models are offered only the tools a message asks for."""

from __future__ import annotations

from core.agent.loop import AgentRunner
from core.agent.tool_gate import HintedToolGate, OfferAll
from core.events import Done
from core.providers.base import ProviderProfile
from core.providers.fake import ScriptedProvider
from core.tools.builtin import builtin_toolset
from core.types import Message

TINY = ProviderProfile(native_tools=False, json_schema=True, local=True, context_window=2048)


def offered(message: str) -> tuple[str, ...]:
    return HintedToolGate().select(message, builtin_toolset()).names()


def test_greetings_get_no_tools() -> None:
    assert offered("hello") == ()
    assert offered("tell me about your day off") == ("current_time",)  # "day" is a time word


def test_messages_that_need_a_tool_get_it() -> None:
    assert offered("what is 17 + 25?") == ("calculator",)
    assert offered("What time is it in Tokyo?") == ("current_time",)
    assert offered("calculate the square root of 2") == ("calculator",)


def test_offer_all_keeps_every_tool() -> None:
    assert OfferAll().select("hello", builtin_toolset()).names() == ("current_time", "calculator")


async def test_tiny_model_answers_a_greeting_as_plain_streamed_text() -> None:
    provider = ScriptedProvider(["Hi! How can I help?"], profile=TINY)
    runner = AgentRunner(provider, builtin_toolset(), tool_gate=HintedToolGate())
    events = [e async for e in runner.run([Message("user", "hello")])]
    provider.assert_complete()
    request = provider.requests[0]
    assert request.tools == () and request.response_schema is None  # no tool protocol at all
    done = events[-1]
    assert isinstance(done, Done) and done.answer == "Hi! How can I help?" and done.tool_calls == ()


async def test_tiny_model_gets_the_constrained_tool_call_when_the_message_needs_a_tool() -> None:
    provider = ScriptedProvider(
        ['{"tool": "calculator", "arguments": {"expression": "17 + 25"}}', '{"answer": "It is 42."}'],
        profile=TINY,
    )
    runner = AgentRunner(provider, builtin_toolset(), tool_gate=HintedToolGate())
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
