"""The agent loop completes tool-call round trips through the OpenAI-compatible adapter against each fake
server (vLLM, Ollama, LM Studio, llama.cpp), each with the quirks its users meet."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.agent.loop import AgentRunner
from core.config import load_config
from core.events import Done, RunEvent, TextDelta, ToolCallEnded
from core.providers.openai_compat import OpenAICompatProvider
from core.providers.pricing import CostLedger
from core.providers.registry import ProviderFactory
from core.providers.wrappers import CostTrackingProvider, RetryingProvider
from core.tools.base import tool
from core.tools.toolset import Toolset
from core.types import Message
from tests.fakes.openai_dialect_servers import DIALECT_SERVERS, Call, DialectServer, Turn, calls, said

QUESTION = (Message("system", "You are Daemon."), Message("user", "What is the weather in Paris?"))
ANSWER = "It is sunny in Paris, 22 °C."
# What each server typically does on a tool call (their usual format plus one quirk of theirs).
QUIRKS: dict[str, dict[str, Any]] = {
    "vllm": {},
    "ollama": {"ids": "missing", "finish": "stop", "args_as": "object"},
    "lmstudio": {"finish": "stop", "usage": False},
    "llamacpp": {"index": "missing"},
}
HERMES = (
    'I will look it up.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)


def weather_tools(seen: list[str]) -> Toolset:
    """A toolset whose one tool records the cities it was asked about."""

    @tool
    async def get_weather(city: str) -> str:
        """Current weather for a city.

        Args:
            city: The city's name.
        """
        seen.append(city)
        return f"sunny, 22 C in {city}"

    return Toolset([get_weather])


@pytest.fixture(params=sorted(DIALECT_SERVERS))
async def server(request: pytest.FixtureRequest) -> AsyncIterator[DialectServer]:
    fake = DIALECT_SERVERS[request.param]().start()
    yield fake
    fake.stop()


async def run(server: DialectServer, seen: list[str], *turns: Turn) -> list[RunEvent]:
    server.script(*turns)
    provider = OpenAICompatProvider(
        model="qwen2.5-7b-instruct", base_url=server.base_url + "/v1", dialect=server.dialect, timeout=5.0
    )
    try:
        events = [event async for event in AgentRunner(provider, weather_tools(seen)).run(QUESTION)]
    finally:
        await provider.aclose()
    server.assert_done()
    assert isinstance(events[-1], Done), events[-1]
    return events


def tool_exchange(server: DialectServer, request_no: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The assistant message with the call and the tool result, as sent in request `request_no`."""
    assistant, result = server.requests[request_no].body["messages"][-2:]
    return assistant, result


async def test_a_tool_call_round_trip_completes_against_each_server(server: DialectServer) -> None:
    seen: list[str] = []
    events = await run(
        server, seen, calls(Call("get_weather", {"city": "Paris"}), **QUIRKS[server.dialect]), said(ANSWER)
    )
    done = events[-1]
    assert isinstance(done, Done) and done.answer == ANSWER and done.exit_reason == "answer"
    assert seen == ["Paris"]
    ended = [e for e in events if isinstance(e, ToolCallEnded)]
    assert [(e.ok, e.output) for e in ended] == [(True, "sunny, 22 C in Paris")]
    assistant, result = tool_exchange(server, 1)
    (sent_call,) = assistant["tool_calls"]
    assert sent_call["id"] and result["tool_call_id"] == sent_call["id"] == ended[0].call.id
    assert result["role"] == "tool" and result["name"] == "get_weather"
    assert "sunny, 22 C in Paris" in result["content"]
    assert [t["function"]["name"] for t in server.requests[0].body["tools"]] == ["get_weather"]


async def test_invalid_json_arguments_go_back_to_the_model_which_retries(server: DialectServer) -> None:
    seen: list[str] = []
    events = await run(
        server,
        seen,
        calls(Call("get_weather", "{'city': 'Paris'}"), ids="call_0"),
        calls(Call("get_weather", {"city": "Paris"}), ids="call_0"),  # the same id again, next round
        said(ANSWER),
    )
    assert seen == ["Paris"]  # the unreadable call never reached the tool
    first, second = [e for e in events if isinstance(e, ToolCallEnded)]
    assert not first.ok and "not a valid JSON object" in first.output and "{'city': 'Paris'}" in first.output
    assert second.ok and first.call.id != second.call.id
    _, error_result = tool_exchange(server, 1)
    assert "not a valid JSON object" in error_result["content"]
    messages = server.requests[2].body["messages"]
    call_ids = [c["id"] for m in messages for c in m.get("tool_calls") or []]
    result_ids = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert call_ids == result_ids and len(set(call_ids)) == 2
    assert isinstance(events[-1], Done) and events[-1].answer == ANSWER


async def test_a_call_written_as_text_runs_and_goes_back_as_a_native_call(server: DialectServer) -> None:
    seen: list[str] = []
    events = await run(server, seen, said(HERMES), said(ANSWER))
    assert seen == ["Paris"]
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "<tool_call" not in shown and "I will look it up." in shown
    assistant, result = tool_exchange(server, 1)
    assert assistant["content"].strip() == "I will look it up."
    assert assistant["tool_calls"][0]["function"]["name"] == "get_weather"
    assert result["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert isinstance(events[-1], Done) and events[-1].answer == ANSWER


async def test_parallel_calls_with_one_repeated_id_each_get_their_own_result(server: DialectServer) -> None:
    seen: list[str] = []
    two = (Call("get_weather", {"city": "Paris"}), Call("get_weather", {"city": "Lyon"}))
    events = await run(server, seen, calls(*two, ids="call_0"), said(ANSWER))
    assert sorted(seen) == ["Lyon", "Paris"]
    messages = server.requests[1].body["messages"]
    sent = {c["id"]: json.loads(c["function"]["arguments"])["city"] for c in messages[-3]["tool_calls"]}
    results = {m["tool_call_id"]: m["content"] for m in messages[-2:]}
    assert len(sent) == 2 and set(results) == set(sent)
    assert all(f"in {city}" in results[cid] for cid, city in sent.items())  # each result answers its call
    assert isinstance(events[-1], Done) and events[-1].answer == ANSWER


def openai_adapter(env: dict[str, str]) -> OpenAICompatProvider:
    """The adapter inside the wrapped "openai" provider (cost tracking around retries around it)."""
    wrapped = ProviderFactory(load_config(env=env), env, CostLedger()).wrapped("openai")
    assert isinstance(wrapped, CostTrackingProvider) and isinstance(wrapped.inner, RetryingProvider)
    adapter = wrapped.inner.inner
    assert isinstance(adapter, OpenAICompatProvider)
    return adapter


def test_the_dialect_setting_reaches_the_adapter() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "DAEMON_PROVIDERS__OPENAI__DIALECT": "ollama"}
    assert openai_adapter(env).dialect.name == "ollama"
    assert openai_adapter({"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}).dialect.name == "openai"
