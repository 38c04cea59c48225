"""Images on the wire: a vision provider sends a user message's images as its vendor's real image parts
(OpenAI `image_url` data URL, Anthropic base64 `image` block, Gemini `inline_data`), through the real SDKs
against the local fake servers; a provider without vision never sends the bytes."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator

import pytest

from core.config import ProviderConfig
from core.providers.anthropic_provider import AnthropicProvider
from core.providers.gemini_provider import GeminiProvider
from core.providers.openai_compat import OpenAICompatProvider
from core.providers.vision import model_takes_images, takes_images
from core.types import ChatRequest, ImageData, Message, StreamPart, TextPart
from tests.contract.fake_servers import FakeServer, reply

PIXEL = b"\xff\xd8\xff\xe0fake-jpeg-bytes\xff\xd9"  # what the bytes are does not matter to the wire
ENCODED = base64.b64encode(PIXEL).decode("ascii")


def ask_with_image() -> ChatRequest:
    image = ImageData(PIXEL, "image/jpeg", "attached: beach.jpg")
    messages = (
        Message("system", "You are Daemon."),
        Message("user", "What is in this photo?", images=(image,)),
    )
    return ChatRequest(messages=messages)


async def drain(stream: AsyncIterator[StreamPart]) -> str:
    return "".join([part.text async for part in stream if isinstance(part, TextPart)])


async def test_a_vision_openai_model_gets_an_image_url_data_part(openai_server: FakeServer) -> None:
    openai_server.script(reply("A beach."))
    provider = OpenAICompatProvider(
        model="gpt-4o", api_key="sk-test", base_url=openai_server.base_url + "/v1", vision=True
    )
    try:
        assert await drain(provider.stream(ask_with_image())) == "A beach."
    finally:
        await provider.aclose()
    user = openai_server.requests[0].body["messages"][1]
    assert user["content"] == [
        {"type": "text", "text": "What is in this photo?"},
        {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{ENCODED}"}},
    ]


async def test_an_openai_model_without_vision_never_gets_the_bytes(openai_server: FakeServer) -> None:
    openai_server.script(reply("I cannot see images."))
    provider = OpenAICompatProvider(
        model="gpt-3.5-turbo", api_key="sk-test", base_url=openai_server.base_url + "/v1"
    )
    try:
        await provider.complete(ask_with_image())
    finally:
        await provider.aclose()
    body = openai_server.requests[0].body
    assert body["messages"][1]["content"] == "What is in this photo?"
    assert ENCODED not in json.dumps(body)


async def test_anthropic_gets_a_base64_image_block_before_the_text(anthropic_server: FakeServer) -> None:
    anthropic_server.script(reply("A beach."))
    provider = AnthropicProvider(
        model="claude-sonnet-4-5", api_key="sk-ant-test", base_url=anthropic_server.base_url
    )
    try:
        assert await drain(provider.stream(ask_with_image())) == "A beach."
    finally:
        await provider.aclose()
    content = anthropic_server.requests[0].body["messages"][0]["content"]
    assert content == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": ENCODED}},
        {"type": "text", "text": "What is in this photo?"},
    ]


async def test_gemini_gets_the_image_as_inline_data(gemini_server: FakeServer) -> None:
    gemini_server.script(reply("A beach."))
    provider = GeminiProvider(
        model="gemini-2.5-flash", api_key="AIza-test-0123456789", base_url=gemini_server.base_url
    )
    try:
        response = await provider.complete(ask_with_image())
    finally:
        await provider.aclose()
    assert response.text == "A beach."
    text, image = gemini_server.requests[0].body["contents"][0]["parts"]
    assert text == {"text": "What is in this photo?"}
    inline = image["inlineData"]  # the SDK writes the bytes URL-safe base64 and the type as `mime_type`
    assert base64.urlsafe_b64decode(inline["data"]) == PIXEL
    assert inline.get("mimeType", inline.get("mime_type")) == "image/jpeg"


@pytest.mark.parametrize(
    ("kind", "model", "vision"),
    [
        ("openai", "gpt-4o-mini", True),
        ("openai", "llava:13b", True),
        ("openai", "gpt-3.5-turbo", False),
        ("openai", "o3-mini", False),
        ("openai", "qwen2.5:7b", False),
        ("anthropic", "claude-haiku-4-5", True),
        ("gemini", "gemini-2.5-flash", True),
        ("local", "smollm2-135m", False),
        ("echo", "echo", False),
    ],
)
def test_the_vision_capability_follows_the_model_name(kind: str, model: str, vision: bool) -> None:
    assert model_takes_images(kind, model) is vision


def test_the_config_setting_wins_over_the_name() -> None:
    assert takes_images(ProviderConfig(kind="openai", model="my-finetune", vision=True))
    assert not takes_images(ProviderConfig(kind="openai", model="gpt-4o", vision=False))
