"""AnthropicProvider against a local server speaking the Messages API (JSON and SSE events)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.errors import ProviderError, TruncatedStreamError
from core.providers.anthropic_provider import AnthropicProvider
from core.providers.base import ChatProvider
from core.types import (
    ChatRequest,
    FinishPart,
    Message,
    StreamPart,
    TextPart,
    ToolCall,
    ToolCallPart,
    ToolSpec,
)
from tests.contract.fake_servers import FakeCall, FakeServer, Truncation, cut_off, error, reply, tool_calls

KEY = "sk-ant-test-0123456789abcdef"
MODEL = "claude-test-1"
WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def ask(text: str = "Hello?", **kw: Any) -> ChatRequest:
    messages = (Message("system", "You are Daemon."), Message("user", text))
    return ChatRequest(messages=messages, **kw)


@pytest.fixture
async def provider(anthropic_server: FakeServer) -> AsyncIterator[AnthropicProvider]:
    adapter = AnthropicProvider(model=MODEL, api_key=KEY, base_url=anthropic_server.base_url)
    yield adapter
    await adapter.aclose()


async def drain(stream: AsyncIterator[StreamPart]) -> list[StreamPart]:
    return [part async for part in stream]


async def test_complete_splits_system_prompt_and_reports_usage(
    provider: AnthropicProvider, anthropic_server: FakeServer
) -> None:
    anthropic_server.script(reply("Hi, I am Claude.", input_tokens=40, output_tokens=6))
    response = await provider.complete(ask(max_tokens=99))
    assert isinstance(provider, ChatProvider)
    assert response.text == "Hi, I am Claude." and response.finish_reason == "stop"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (40, 6)
    sent = anthropic_server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.body["system"] == "You are Daemon."
    assert sent.body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hello?"}]}]
    assert sent.body["max_tokens"] == 99 and sent.body["model"] == MODEL
    assert "temperature" not in sent.body
    assert KEY in (sent.headers.get("x-api-key", "") + sent.headers.get("authorization", ""))
    anthropic_server.assert_done()


async def test_stream_follows_events_to_message_stop(
    provider: AnthropicProvider, anthropic_server: FakeServer
) -> None:
    anthropic_server.script(reply("A streamed Claude answer.", input_tokens=33, output_tokens=8))
    parts = await drain(provider.stream(ask()))
    texts = [p.text for p in parts if isinstance(p, TextPart)]
    assert len(texts) > 1 and "".join(texts) == "A streamed Claude answer."
    assert [type(p) for p in parts].count(FinishPart) == 1 and isinstance(parts[-1], FinishPart)
    assert parts[-1].usage.input_tokens == 33 and parts[-1].usage.output_tokens == 8
    assert parts[-1].finish_reason == "stop"
    assert anthropic_server.requests[0].body["stream"] is True


async def test_tool_use_round_trip_sends_tool_result_block(
    provider: AnthropicProvider, anthropic_server: FakeServer
) -> None:
    call = FakeCall("get_weather", {"city": "Paris"}, id="toolu_01")
    anthropic_server.script(tool_calls(call, text="Let me check."), reply("Sunny in Paris."))
    request = ask("Weather in Paris?", tools=(WEATHER,), tool_choice="required")

    parts = await drain(provider.stream(request))  # input_json_delta fragments are joined
    calls = [p.call for p in parts if isinstance(p, ToolCallPart)]
    assert calls == [ToolCall("toolu_01", "get_weather", {"city": "Paris"})]
    assert isinstance(parts[-1], FinishPart) and parts[-1].finish_reason == "tool_calls"
    first = anthropic_server.requests[0].body
    assert first["tools"] == [
        {"name": "get_weather", "description": WEATHER.description, "input_schema": WEATHER.parameters}
    ]
    assert first["tool_choice"] == {"type": "any"}

    history = (
        *request.messages,
        Message("assistant", "Let me check.", tool_calls=tuple(calls)),
        Message("tool", "sunny, 22C", tool_call_id="toolu_01"),
    )
    answer = await provider.complete(ChatRequest(messages=history, tools=(WEATHER,)))
    assert answer.text == "Sunny in Paris."
    sent = anthropic_server.requests[1].body
    assert sent["system"] == "You are Daemon."
    assert sent["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "sunny, 22C"}],
        },
    ]


async def test_complete_reads_tool_use_blocks(
    provider: AnthropicProvider, anthropic_server: FakeServer
) -> None:
    anthropic_server.script(tool_calls(FakeCall("get_weather", {"city": "Rome"}, id="toolu_9")))
    response = await provider.complete(ask(tools=(WEATHER,), tool_choice="get_weather"))
    assert response.tool_calls == (ToolCall("toolu_9", "get_weather", {"city": "Rome"}),)
    assert response.finish_reason == "tool_calls"
    assert anthropic_server.requests[0].body["tool_choice"] == {"type": "tool", "name": "get_weather"}


async def test_consecutive_tool_results_merge_into_one_user_turn(
    provider: AnthropicProvider, anthropic_server: FakeServer
) -> None:
    anthropic_server.script(reply("done"))
    calls = (ToolCall("a", "get_weather", {"city": "X"}), ToolCall("b", "get_weather", {"city": "Y"}))
    history = (
        Message("user", "two cities"),
        Message("assistant", "", tool_calls=calls),
        Message("tool", "rain", tool_call_id="a"),
        Message("tool", "snow", tool_call_id="b"),
    )
    await provider.complete(ChatRequest(messages=history))
    turns = anthropic_server.requests[0].body["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert [b["tool_use_id"] for b in turns[2]["content"]] == ["a", "b"]
    assert "system" not in anthropic_server.requests[0].body


async def test_response_schema_becomes_output_format(
    provider: AnthropicProvider, anthropic_server: FakeServer
) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    anthropic_server.script(reply('{"ok": true}'))
    await provider.complete(ask(response_schema=schema, stop=("###",)))
    body = anthropic_server.requests[0].body
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": schema}}
    assert body["stop_sequences"] == ["###"]


async def test_rate_limit_is_retryable_with_retry_after(
    provider: AnthropicProvider, anthropic_server: FakeServer
) -> None:
    anthropic_server.script(error(429, "Number of requests has exceeded your rate limit", retry_after="12"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask())
    assert caught.value.status == 429 and caught.value.retryable and caught.value.retry_after == 12.0


async def test_overloaded_529_is_retryable(provider: AnthropicProvider, anthropic_server: FakeServer) -> None:
    anthropic_server.script(error(529, "Overloaded"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask())
    assert caught.value.status == 529 and caught.value.retryable


async def test_unauthorized_is_final_and_names_env_var(
    provider: AnthropicProvider, anthropic_server: FakeServer
) -> None:
    anthropic_server.script(error(401, f"invalid x-api-key {KEY}"))
    with pytest.raises(ProviderError) as caught:
        async for _ in provider.stream(ask()):
            pass
    assert caught.value.status == 401 and not caught.value.retryable
    assert "ANTHROPIC_API_KEY" in str(caught.value) and KEY not in str(caught.value)


@pytest.mark.parametrize("how", ["drop", "eof"])
async def test_truncated_stream_raises(
    provider: AnthropicProvider, anthropic_server: FakeServer, how: Truncation
) -> None:
    anthropic_server.script(cut_off("An answer that stops before message_stop arrives.", how))
    received: list[StreamPart] = []
    with pytest.raises(TruncatedStreamError):
        async for part in provider.stream(ask()):
            received.append(part)
    assert not any(isinstance(p, FinishPart) for p in received)
