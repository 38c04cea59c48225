"""Tool calls through the OpenAI-compatible adapter against fake vLLM, Ollama, LM Studio and llama.cpp.

The real `openai` SDK talks to each fake over 127.0.0.1 in that server's own wire format; every quirk is
checked both streamed (SSE) and whole (JSON) unless it only exists in one of them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

import pytest

from core.providers.base import collect_stream
from core.providers.openai_compat import OpenAICompatProvider
from core.providers.openai_tools import INVALID_ARGUMENTS_KEY, invalid_arguments_error
from core.types import ChatRequest, Message, ModelResponse, StreamPart, TextPart, ToolCall, ToolSpec
from tests.fakes.openai_dialect_servers import DIALECT_SERVERS, Call, DialectServer, calls, said

WEATHER = ToolSpec(
    "get_weather",
    "Current weather for a city",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
CLOCK = ToolSpec("get_time", "The current time", {"type": "object", "properties": {}})
TOOLS = (WEATHER, CLOCK)
DIALECTS = sorted(DIALECT_SERVERS)
MODES = ("stream", "complete")


@dataclass
class Wire:
    """One fake server and the adapter pointed at it."""

    server: DialectServer
    provider: OpenAICompatProvider
    mode: str

    async def answer(self, request: ChatRequest) -> ModelResponse:
        if self.mode == "stream":
            return await collect_stream(self.provider.stream(request))
        return await self.provider.complete(request)

    async def parts(self, request: ChatRequest) -> list[StreamPart]:
        return [part async for part in self.provider.stream(request)]

    @property
    def sent(self) -> dict:
        return self.server.requests[-1].body


class Serve(Protocol):
    """The `serve` fixture: starts a fake server of a dialect and an adapter speaking to it."""

    async def __call__(self, dialect: str, mode: str = "stream") -> Wire: ...


@pytest.fixture
async def serve() -> AsyncIterator[Serve]:
    """`await serve(dialect, mode)` starts a fake server of that dialect and an adapter speaking to it."""
    started: list[Wire] = []

    async def start(dialect: str, mode: str = "stream") -> Wire:
        server = DIALECT_SERVERS[dialect]().start()
        provider = OpenAICompatProvider(
            model="qwen2.5-7b-instruct",
            base_url=server.base_url + "/v1",
            name=dialect,
            dialect=dialect,
            timeout=5.0,
            key_env=None,
        )
        started.append(Wire(server, provider, mode))
        return started[-1]

    yield start
    for wire in started:
        await wire.provider.aclose()
        wire.server.stop()


def ask(*history: Message, tools: tuple[ToolSpec, ...] = TOOLS, choice: str | None = None) -> ChatRequest:
    messages = (Message("system", "You are Daemon."), Message("user", "Weather in Paris?"), *history)
    return ChatRequest(messages, tools=tools, tool_choice=choice)


# --- Native calls ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_parallel_native_calls_keep_the_servers_ids_and_report_tool_calls(
    serve: Serve, dialect: str, mode: str
) -> None:
    wire = await serve(dialect, mode)
    wire.server.script(calls(Call("get_weather", {"city": "Paris"}), Call("get_weather", {"city": "Oslo"})))
    response = await wire.answer(ask())
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Oslo"}),
    ]
    ids = [c.id for c in response.tool_calls]
    assert ids == wire.server.sent_ids and len(set(ids)) == 2
    assert response.finish_reason == "tool_calls" and response.text == ""
    assert [t["function"]["name"] for t in wire.sent["tools"]] == ["get_weather", "get_time"]
    assert "tool_choice" not in wire.sent  # never required: several servers ignore or refuse it
    wire.server.assert_done()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_arguments_as_object_empty_string_or_null_are_read(
    serve: Serve, dialect: str, mode: str
) -> None:
    wire = await serve(dialect, mode)
    wire.server.script(
        calls(Call("get_weather", {"city": "Paris"}), args_as="object"),
        calls(Call("get_time", ""), Call("get_time", None)),
    )
    first = await wire.answer(ask())
    assert first.tool_calls[0].arguments == {"city": "Paris"}
    second = await wire.answer(ask())
    assert [(c.name, c.arguments) for c in second.tool_calls] == [("get_time", {}), ("get_time", {})]
    assert len({c.id for c in second.tool_calls}) == 2


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_invalid_json_arguments_become_a_clear_error_not_a_crash(
    serve: Serve, dialect: str, mode: str
) -> None:
    wire = await serve(dialect, mode)
    wire.server.script(calls(Call("get_weather", '{"city": "Par'), Call("get_weather", {"city": "Rome"})))
    response = await wire.answer(ask())
    broken, fine = response.tool_calls
    assert broken.arguments == {INVALID_ARGUMENTS_KEY: '{"city": "Par'} and fine.arguments == {"city": "Rome"}
    error = invalid_arguments_error(broken)
    assert error is not None and "not a valid JSON object" in error and '{"city": "Par' in error
    assert invalid_arguments_error(fine) is None


@pytest.mark.parametrize("ids", ["missing", "empty", "call_0"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_missing_empty_or_repeated_ids_are_replaced_by_stable_unique_ones(
    serve: Serve, dialect: str, mode: str, ids: str
) -> None:
    wire = await serve(dialect, mode)
    turn = calls(Call("get_weather", {"city": "Paris"}), Call("get_time"), ids=ids)
    wire.server.script(turn, turn)
    earlier = Message("assistant", "", tool_calls=(ToolCall("call_0", "get_time", {}),))
    history = (earlier, Message("tool", "12:00", tool_call_id="call_0", name="get_time"))
    first = await wire.answer(ask(*history))
    again = await wire.answer(ask(*history))
    first_ids = [c.id for c in first.tool_calls]
    assert len(set(first_ids)) == 2 and all(first_ids) and "call_0" not in first_ids
    assert [c.id for c in again.tool_calls] == first_ids  # the same answer to the same request: same ids


async def test_generated_ids_differ_from_one_round_to_the_next(serve: Serve) -> None:
    wire = await serve("ollama", "complete")
    turn = calls(Call("get_time"), ids="missing")
    wire.server.script(turn, turn)
    first = await wire.answer(ask())
    history = (
        Message("assistant", "", tool_calls=first.tool_calls),
        Message("tool", "12:00", tool_call_id=first.tool_calls[0].id, name="get_time"),
    )
    second = await wire.answer(ask(*history))
    assert first.tool_calls[0].id != second.tool_calls[0].id


# --- Streaming quirks ----------------------------------------------------------------------------


async def test_deltas_without_index_continue_the_latest_call(serve: Serve) -> None:
    wire = await serve("llamacpp")
    wire.server.script(
        calls(Call("get_weather", {"city": "Paris"}), Call("get_weather", {"city": "Lyon"}), index="missing")
    )
    response = await wire.answer(ask())
    assert [c.arguments for c in response.tool_calls] == [{"city": "Paris"}, {"city": "Lyon"}]


async def test_deltas_without_index_or_ids_still_separate_parallel_calls(serve: Serve) -> None:
    wire = await serve("llamacpp")
    two = (Call("get_weather", {"city": "Paris"}), Call("get_weather", {"city": "Lyon"}), Call("get_time"))
    wire.server.script(calls(*two, index="missing", ids="missing"))
    response = await wire.answer(ask())
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Lyon"}),
        ("get_time", {}),
    ]


@pytest.mark.parametrize("dialect", ["vllm", "llamacpp", "lmstudio"])
async def test_interleaved_parallel_calls_are_joined_by_index(serve: Serve, dialect: str) -> None:
    wire = await serve(dialect)
    long_city = {"city": "Llanfairpwllgwyngyll", "units": "metric"}
    wire.server.script(
        calls(
            Call("get_weather", long_city),
            Call("get_weather", {"city": "Oslo"}),
            interleave=True,
            arg_pieces=6,
        )
    )
    response = await wire.answer(ask())
    assert [c.arguments for c in response.tool_calls] == [long_city, {"city": "Oslo"}]


async def test_parallel_calls_all_at_index_zero_are_kept_apart(serve: Serve) -> None:
    wire = await serve("ollama")
    wire.server.script(
        calls(
            Call("get_weather", {"city": "Paris"}),
            Call("get_weather", {"city": "Rome"}),
            index="zero",
            ids="missing",
        )
    )
    response = await wire.answer(ask())
    assert [c.arguments for c in response.tool_calls] == [{"city": "Paris"}, {"city": "Rome"}]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", ["lmstudio", "ollama"])
async def test_finish_reason_stop_with_calls_still_means_tool_calls(
    serve: Serve, dialect: str, mode: str
) -> None:
    wire = await serve(dialect, mode)
    wire.server.script(calls(Call("get_time"), finish="stop"))
    response = await wire.answer(ask())
    assert response.finish_reason == "tool_calls" and [c.name for c in response.tool_calls] == ["get_time"]


@pytest.mark.parametrize(
    ("dialect", "usage", "expected"),
    [
        ("llamacpp", True, (30, 9)),  # in the chunk that carries the finish reason
        ("vllm", True, (30, 9)),  # a last chunk without choices
        ("ollama", True, (30, 9)),
        ("lmstudio", True, (0, 0)),  # never sent while streaming
        ("llamacpp", False, (0, 0)),
    ],
)
async def test_stream_usage_in_the_last_chunk_or_absent(
    serve: Serve, dialect: str, usage: bool, expected: tuple[int, int]
) -> None:
    wire = await serve(dialect)
    wire.server.script(calls(Call("get_time"), usage=usage, input_tokens=30, output_tokens=9))
    response = await wire.answer(ask())
    assert (response.usage.input_tokens, response.usage.output_tokens) == expected
    assert [c.name for c in response.tool_calls] == ["get_time"]


# --- Requests ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
async def test_tool_results_carry_the_call_id_and_the_tool_name(serve: Serve, dialect: str) -> None:
    wire = await serve(dialect, "complete")
    wire.server.script(said("Sunny."))
    call = ToolCall("365174485", "get_weather", {"city": "Paris"})
    result = Message("tool", "sunny", tool_call_id="365174485", name="get_weather")
    history = (Message("assistant", "", tool_calls=(call,)), result)
    await wire.answer(ask(*history))
    assistant, sent_result = wire.sent["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == "365174485" and assistant["content"] is None
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
    assert sent_result == {
        "role": "tool",
        "tool_call_id": "365174485",
        "name": "get_weather",
        "content": "sunny",
    }


@pytest.mark.parametrize(
    ("dialect", "choice", "offered", "sent"),
    [
        ("vllm", "none", ["get_weather", "get_time"], "none"),
        (
            "vllm",
            "get_weather",
            ["get_weather", "get_time"],
            {"type": "function", "function": {"name": "get_weather"}},
        ),
        ("vllm", "auto", ["get_weather", "get_time"], None),  # refused without --enable-auto-tool-choice
        ("llamacpp", "get_weather", ["get_weather"], "required"),  # the object form is an error there
        ("llamacpp", "none", ["get_weather", "get_time"], "none"),
        ("lmstudio", "get_weather", ["get_weather"], "required"),
        ("ollama", "none", None, None),  # ignored by Ollama, so no tools are offered at all
        ("ollama", "get_weather", ["get_weather"], None),
        ("ollama", "required", ["get_weather", "get_time"], None),
    ],
)
async def test_tool_choice_is_sent_only_as_the_server_honours_it(
    serve: Serve, dialect: str, choice: str, offered: list[str] | None, sent: object
) -> None:
    wire = await serve(dialect, "complete")
    wire.server.script(said("ok"))
    await wire.answer(ask(choice=choice))
    body = wire.sent
    assert ([t["function"]["name"] for t in body["tools"]] if "tools" in body else None) == offered
    assert body.get("tool_choice") == sent


async def test_openai_dialect_sends_the_named_tool_choice(serve: Serve) -> None:
    wire = await serve("vllm", "complete")
    await wire.provider.aclose()
    wire.provider = OpenAICompatProvider(model="m", base_url=wire.server.base_url + "/v1", dialect="openai")
    wire.server.script(said("ok"), said("ok"))
    await wire.answer(ask(choice="get_weather"))
    assert wire.sent["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    await wire.answer(ask(choice="auto"))
    assert wire.sent["tool_choice"] == "auto" and len(wire.sent["tools"]) == 2


# --- Calls written as text -----------------------------------------------------------------------

HERMES = 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
BARE = '```json\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n```'


@pytest.mark.parametrize("text", [HERMES, BARE], ids=["hermes-marker", "bare-json"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_a_call_written_as_text_becomes_a_tool_call(
    serve: Serve, dialect: str, mode: str, text: str
) -> None:
    wire = await serve(dialect, mode)
    wire.server.script(said(text))
    response = await wire.answer(ask())
    assert [(c.name, c.arguments) for c in response.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert response.tool_calls[0].id.startswith("call_")
    assert response.finish_reason == "tool_calls"
    assert response.text.strip() == ("Let me check." if text == HERMES else "")


@pytest.mark.parametrize("text", [HERMES, BARE], ids=["hermes-marker", "bare-json"])
async def test_streamed_text_never_shows_a_call_written_as_text(serve: Serve, text: str) -> None:
    wire = await serve("lmstudio")
    wire.server.script(said(text))
    shown = "".join(p.text for p in await wire.parts(ask()) if isinstance(p, TextPart))
    assert shown == ("Let me check.\n" if text == HERMES else "")


async def test_unreadable_json_inside_a_marker_is_an_error_for_the_named_tool(serve: Serve) -> None:
    wire = await serve("ollama")
    wire.server.script(said('<tool_call>{"name": "get_weather", "arguments": {"city": "Par}</tool_call>'))
    response = await wire.answer(ask())
    (call,) = response.tool_calls
    assert call.name == "get_weather" and INVALID_ARGUMENTS_KEY in call.arguments
    assert invalid_arguments_error(call) is not None


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "Ada", "arguments": "none"}',  # JSON that names no offered tool
        '{"name": "get_weather", "arguments": {"city": "Paris"}, "note": "an example"}',  # more than a call
        'Use get_weather like this: {"name": "get_weather"}',  # a call shown inside prose
    ],
)
@pytest.mark.parametrize("mode", MODES)
async def test_json_that_is_not_a_call_stays_the_answer(serve: Serve, mode: str, text: str) -> None:
    wire = await serve("vllm", mode)
    wire.server.script(said(text))
    response = await wire.answer(ask())
    assert response.text == text and response.tool_calls == () and response.finish_reason == "stop"


async def test_without_tools_offered_a_marker_is_only_text(serve: Serve) -> None:
    wire = await serve("llamacpp")
    wire.server.script(said(HERMES))
    response = await wire.answer(ask(tools=()))
    assert response.text == HERMES and response.tool_calls == ()
    assert "tools" not in wire.sent
