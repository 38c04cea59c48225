"""OpenAICompatProvider against a local server speaking the Chat Completions wire format."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.errors import ProviderError, TruncatedStreamError
from core.providers.base import ChatProvider
from core.providers.openai_compat import INVALID_ARGUMENTS_KEY, OpenAICompatProvider
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
from tests.contract.fake_servers import (
    FakeCall,
    FakeServer,
    Step,
    Truncation,
    cut_off,
    error,
    reply,
    tool_calls,
)

KEY = "sk-test-0123456789abcdef"
WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def ask(text: str = "Hello?", **kw: Any) -> ChatRequest:
    return ChatRequest(messages=(Message("system", "You are Daemon."), Message("user", text)), **kw)


@pytest.fixture
async def provider(openai_server: FakeServer) -> AsyncIterator[OpenAICompatProvider]:
    adapter = OpenAICompatProvider(model="gpt-4o-mini", api_key=KEY, base_url=openai_server.base_url + "/v1")
    yield adapter
    await adapter.aclose()


async def drain(stream: AsyncIterator[StreamPart]) -> list[StreamPart]:
    return [part async for part in stream]


async def test_is_a_chat_provider(provider: OpenAICompatProvider) -> None:
    assert isinstance(provider, ChatProvider)
    assert provider.profile.native_tools and provider.profile.json_schema


async def test_complete_returns_text_usage_and_sends_messages(
    provider: OpenAICompatProvider, openai_server: FakeServer
) -> None:
    openai_server.script(reply("Hello from the fake.", input_tokens=21, output_tokens=5))
    response = await provider.complete(ask(max_tokens=64, temperature=0.2))
    assert response.text == "Hello from the fake."
    assert (response.usage.input_tokens, response.usage.output_tokens) == (21, 5)
    assert response.model == "gpt-4o-mini" and response.finish_reason == "stop"
    sent = openai_server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.body["messages"] == [
        {"role": "system", "content": "You are Daemon."},
        {"role": "user", "content": "Hello?"},
    ]
    assert sent.body["max_tokens"] == 64 and sent.body["temperature"] == 0.2
    assert "tools" not in sent.body
    openai_server.assert_done()


async def test_stream_yields_text_pieces_then_one_finish_with_usage(
    provider: OpenAICompatProvider, openai_server: FakeServer
) -> None:
    openai_server.script(reply("Streaming works end to end.", input_tokens=30, output_tokens=9))
    parts = await drain(provider.stream(ask()))
    texts = [p.text for p in parts if isinstance(p, TextPart)]
    assert len(texts) > 1 and "".join(texts) == "Streaming works end to end."
    assert [type(p) for p in parts].count(FinishPart) == 1 and isinstance(parts[-1], FinishPart)
    assert parts[-1].usage.input_tokens == 30 and parts[-1].usage.output_tokens == 9
    body = openai_server.requests[0].body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


async def test_tool_call_round_trip_uses_openai_tool_message_shape(
    provider: OpenAICompatProvider, openai_server: FakeServer
) -> None:
    call = FakeCall("get_weather", {"city": "Paris", "units": "metric"}, id="call_abc")
    openai_server.script(tool_calls(call), reply("It is sunny in Paris."))
    request = ask("Weather in Paris?", tools=(WEATHER,), tool_choice="get_weather")

    parts = await drain(provider.stream(request))  # argument deltas arrive in three fragments
    calls = [p.call for p in parts if isinstance(p, ToolCallPart)]
    assert calls == [ToolCall("call_abc", "get_weather", {"city": "Paris", "units": "metric"})]
    assert isinstance(parts[-1], FinishPart) and parts[-1].finish_reason == "tool_calls"
    first = openai_server.requests[0].body
    assert first["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": WEATHER.description,
                "parameters": WEATHER.parameters,
            },
        }
    ]
    assert first["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}

    history = (
        *request.messages,
        Message("assistant", "", tool_calls=tuple(calls)),
        Message("tool", "sunny, 22C", tool_call_id="call_abc", name="get_weather"),
    )
    answer = await provider.complete(ChatRequest(messages=history, tools=(WEATHER,)))
    assert answer.text == "It is sunny in Paris."
    sent = openai_server.requests[1].body["messages"]
    assert sent[-2]["role"] == "assistant" and sent[-2]["content"] is None
    assert sent[-2]["tool_calls"][0]["id"] == "call_abc"
    assert json.loads(sent[-2]["tool_calls"][0]["function"]["arguments"]) == {
        "city": "Paris",
        "units": "metric",
    }
    assert sent[-1] == {
        "role": "tool",
        "tool_call_id": "call_abc",
        "name": "get_weather",  # some servers (llama.cpp, Ollama templates) need the name
        "content": "sunny, 22C",
    }


async def test_complete_parses_tool_calls_and_flags_malformed_arguments(
    provider: OpenAICompatProvider, openai_server: FakeServer
) -> None:
    good = FakeCall("get_weather", {"city": "Oslo"}, id="c1")
    bad = FakeCall("get_weather", id="c2", raw_arguments='{"city": "Os')
    openai_server.script(tool_calls(good, bad))
    response = await provider.complete(ask(tools=(WEATHER,)))
    assert response.finish_reason == "tool_calls"
    assert response.tool_calls[0] == ToolCall("c1", "get_weather", {"city": "Oslo"})
    assert response.tool_calls[1].arguments == {INVALID_ARGUMENTS_KEY: '{"city": "Os'}


async def test_response_schema_becomes_json_schema_response_format(
    provider: OpenAICompatProvider, openai_server: FakeServer
) -> None:
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    openai_server.script(reply('{"answer": "yes"}'))
    await provider.complete(ask(response_schema=schema, stop=("END",)))
    body = openai_server.requests[0].body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": schema},
    }
    assert body["stop"] == ["END"]


async def test_rate_limit_is_retryable_with_retry_after(
    provider: OpenAICompatProvider, openai_server: FakeServer
) -> None:
    openai_server.script(error(429, "Rate limit reached for requests", retry_after="7"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask())
    assert caught.value.status == 429 and caught.value.retryable
    assert caught.value.retry_after == 7.0
    assert "rate limit" in str(caught.value)


async def test_unauthorized_is_final_names_env_var_and_hides_key(
    provider: OpenAICompatProvider, openai_server: FakeServer
) -> None:
    openai_server.script(error(401, f"Incorrect API key provided: {KEY}"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask())
    assert caught.value.status == 401 and not caught.value.retryable
    assert "OPENAI_API_KEY" in str(caught.value) and KEY not in str(caught.value)


@pytest.mark.parametrize(("status", "retryable"), [(500, True), (503, True), (400, False), (404, False)])
async def test_status_classification(
    provider: OpenAICompatProvider, openai_server: FakeServer, status: int, retryable: bool
) -> None:
    openai_server.script(error(status, f"echo {KEY}"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask())
    assert caught.value.status == status and caught.value.retryable is retryable
    assert KEY not in str(caught.value)


@pytest.mark.parametrize("how", ["drop", "eof"])
async def test_truncated_stream_raises_instead_of_returning_partial_text(
    provider: OpenAICompatProvider, openai_server: FakeServer, how: Truncation
) -> None:
    openai_server.script(cut_off("This answer will never be finished by the model.", how))
    received: list[StreamPart] = []
    with pytest.raises(TruncatedStreamError) as caught:
        async for part in provider.stream(ask()):
            received.append(part)
    assert received and all(isinstance(p, TextPart) for p in received)
    assert caught.value.retryable


async def test_stalled_server_times_out_as_retryable(openai_server: FakeServer) -> None:
    openai_server.script(Step(text="too late", delay=1.0))
    adapter = OpenAICompatProvider(
        model="m", api_key=KEY, base_url=openai_server.base_url + "/v1", timeout=0.2
    )
    with pytest.raises(ProviderError) as caught:
        await adapter.complete(ask())
    await adapter.aclose()
    assert caught.value.retryable and "did not answer within 0.2s" in str(caught.value)


async def test_unreachable_server_is_retryable_connection_error() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    adapter = OpenAICompatProvider(model="llama3", base_url=f"http://127.0.0.1:{port}/v1", name="ollama")
    with pytest.raises(ProviderError) as caught:
        await adapter.complete(ask())
    await adapter.aclose()
    assert caught.value.retryable and caught.value.status is None
    assert str(caught.value) == "ollama could not be reached"


async def test_no_choices_at_all_is_a_retryable_error_whole_or_streamed(
    provider: OpenAICompatProvider, openai_server: FakeServer
) -> None:
    openai_server.script(Step(text="never sent", mangle="empty_choices"))
    with pytest.raises(ProviderError, match="no choices") as caught:
        await provider.complete(ask())
    assert caught.value.retryable
    openai_server.script(Step(text="never sent", mangle="empty_choices"))
    with pytest.raises(TruncatedStreamError) as streamed:
        await drain(provider.stream(ask()))
    assert streamed.value.retryable


async def test_a_stream_event_that_is_not_json_is_a_retryable_provider_error(
    provider: OpenAICompatProvider, openai_server: FakeServer
) -> None:
    openai_server.script(Step(text="Half of this arrives before the garbage does.", mangle="bad_json"))
    with pytest.raises(ProviderError) as caught:
        await drain(provider.stream(ask()))
    assert caught.value.retryable and "malformed" in str(caught.value)
    assert KEY not in str(caught.value)
