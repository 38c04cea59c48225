"""GeminiProvider against a local server speaking generateContent / streamGenerateContent (SSE)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from core.errors import ProviderError, TruncatedStreamError
from core.providers.base import ChatProvider
from core.providers.gemini_provider import GeminiProvider
from core.types import ChatRequest, FinishPart, Message, StreamPart, TextPart, ToolCallPart, ToolSpec
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

KEY = "AIza-test-0123456789abcdef"
MODEL = "gemini-2.5-flash"
WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def ask(text: str = "Hello?", **kw: Any) -> ChatRequest:
    messages = (Message("system", "You are Daemon."), Message("user", text))
    return ChatRequest(messages=messages, **kw)


@pytest.fixture
async def provider(gemini_server: FakeServer) -> AsyncIterator[GeminiProvider]:
    adapter = GeminiProvider(model=MODEL, api_key=KEY, base_url=gemini_server.base_url)
    yield adapter
    await adapter.aclose()


async def drain(stream: AsyncIterator[StreamPart]) -> list[StreamPart]:
    return [part async for part in stream]


async def test_complete_sends_system_instruction_and_reads_usage(
    provider: GeminiProvider, gemini_server: FakeServer
) -> None:
    gemini_server.script(reply("Hello from Gemini.", input_tokens=50, output_tokens=4))
    response = await provider.complete(ask(max_tokens=77, temperature=0.1))
    assert isinstance(provider, ChatProvider)
    assert response.text == "Hello from Gemini." and response.finish_reason == "stop"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (50, 4)
    assert response.model == MODEL
    sent = gemini_server.requests[0]
    assert sent.path.endswith(f"/models/{MODEL}:generateContent")
    assert sent.headers["x-goog-api-key"] == KEY
    assert sent.body["systemInstruction"]["parts"] == [{"text": "You are Daemon."}]
    assert sent.body["contents"] == [{"role": "user", "parts": [{"text": "Hello?"}]}]
    assert sent.body["generationConfig"]["maxOutputTokens"] == 77
    assert sent.body["generationConfig"]["temperature"] == 0.1
    gemini_server.assert_done()


async def test_stream_uses_sse_and_ends_with_one_finish(
    provider: GeminiProvider, gemini_server: FakeServer
) -> None:
    gemini_server.script(reply("Gemini streams in chunks.", input_tokens=18, output_tokens=6))
    parts = await drain(provider.stream(ask()))
    texts = [p.text for p in parts if isinstance(p, TextPart)]
    assert len(texts) > 1 and "".join(texts) == "Gemini streams in chunks."
    assert [type(p) for p in parts].count(FinishPart) == 1 and isinstance(parts[-1], FinishPart)
    assert (parts[-1].usage.input_tokens, parts[-1].usage.output_tokens) == (18, 6)
    sent = gemini_server.requests[0]
    assert sent.path.endswith(":streamGenerateContent") and sent.query["alt"] == ["sse"]


async def test_function_call_round_trip_sends_function_response(
    provider: GeminiProvider, gemini_server: FakeServer
) -> None:
    gemini_server.script(tool_calls(FakeCall("get_weather", {"city": "Paris"})), reply("Sunny in Paris."))
    request = ask("Weather in Paris?", tools=(WEATHER,), tool_choice="required")

    parts = await drain(provider.stream(request))
    calls = [p.call for p in parts if isinstance(p, ToolCallPart)]
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"})]
    assert calls[0].id  # Gemini sends no id; the adapter makes one up so the loop can pair the result
    assert isinstance(parts[-1], FinishPart) and parts[-1].finish_reason == "tool_calls"
    first = gemini_server.requests[0].body
    declaration = first["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "get_weather" and declaration["description"] == WEATHER.description
    assert WEATHER.parameters in (
        declaration.get("parametersJsonSchema"),
        declaration.get("parameters_json_schema"),
    )
    assert first["toolConfig"]["functionCallingConfig"]["mode"] == "ANY"

    history = (
        *request.messages,
        Message("assistant", "", tool_calls=tuple(calls)),
        Message("tool", "sunny, 22C", tool_call_id=calls[0].id),  # no name: found from the call id
    )
    answer = await provider.complete(ChatRequest(messages=history, tools=(WEATHER,)))
    assert answer.text == "Sunny in Paris."
    contents = gemini_server.requests[1].body["contents"]
    assert contents[1] == {
        "role": "model",
        "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}],
    }
    assert contents[2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "get_weather", "response": {"output": "sunny, 22C"}}}],
    }


async def test_response_schema_requests_json_output(
    provider: GeminiProvider, gemini_server: FakeServer
) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    gemini_server.script(reply('{"n": 3}'))
    await provider.complete(ask(response_schema=schema))
    config = gemini_server.requests[0].body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert schema in (config.get("responseJsonSchema"), config.get("response_json_schema"))


async def test_rate_limit_with_retry_after_header(
    provider: GeminiProvider, gemini_server: FakeServer
) -> None:
    gemini_server.script(error(429, "Resource has been exhausted", retry_after="5"))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask())
    assert caught.value.status == 429 and caught.value.retryable and caught.value.retry_after == 5.0


async def test_rate_limit_with_retry_info_detail(provider: GeminiProvider, gemini_server: FakeServer) -> None:
    retry_info = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "31s"}
    gemini_server.script(Step(status=429, message="quota exceeded", details=(retry_info,)))
    with pytest.raises(ProviderError) as caught:
        async for _ in provider.stream(ask()):
            pass
    assert caught.value.status == 429 and caught.value.retry_after == 31.0


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (401, "Request had invalid authentication credentials."),
        (400, "API key not valid. Please pass a valid API key."),
    ],
)
async def test_bad_key_is_final_and_names_env_var(
    provider: GeminiProvider, gemini_server: FakeServer, status: int, message: str
) -> None:
    gemini_server.script(error(status, message))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask())
    assert caught.value.status == 401 and not caught.value.retryable
    assert "GEMINI_API_KEY" in str(caught.value) and KEY not in str(caught.value)


async def test_server_error_is_retryable(provider: GeminiProvider, gemini_server: FakeServer) -> None:
    gemini_server.script(error(503, "The model is overloaded."))
    with pytest.raises(ProviderError) as caught:
        await provider.complete(ask())
    assert caught.value.status == 503 and caught.value.retryable


@pytest.mark.parametrize("how", ["drop", "eof"])
async def test_truncated_stream_raises(
    provider: GeminiProvider, gemini_server: FakeServer, how: Truncation
) -> None:
    gemini_server.script(cut_off("A Gemini answer that never reaches its finishReason.", how))
    received: list[StreamPart] = []
    with pytest.raises(TruncatedStreamError):
        async for part in provider.stream(ask()):
            received.append(part)
    assert received and all(isinstance(p, TextPart) for p in received)


async def test_thought_signature_is_echoed_with_the_function_call(
    provider: GeminiProvider, gemini_server: FakeServer
) -> None:
    signed = FakeCall("get_weather", {"city": "Oslo"}, signature="c2lnbmF0dXJlLWJ5dGVz")
    gemini_server.script(tool_calls(signed), reply("Cold in Oslo."))
    first = await provider.complete(ask("Weather in Oslo?", tools=(WEATHER,)))
    call = first.tool_calls[0]
    history = (
        *ask().messages,
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", "-5C", tool_call_id=call.id),
    )
    await provider.complete(ChatRequest(messages=history, tools=(WEATHER,)))
    model_turn = gemini_server.requests[1].body["contents"][1]
    assert model_turn["parts"][0]["thoughtSignature"] == "c2lnbmF0dXJlLWJ5dGVz"
