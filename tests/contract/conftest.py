"""Fixtures for contract tests: one running fake vendor server per test (see `fake_servers`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.contract.fake_servers import FakeAnthropicServer, FakeGeminiServer, FakeOpenAIServer, FakeServer


def _serve(server: FakeServer) -> Iterator[FakeServer]:
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def openai_server() -> Iterator[FakeServer]:
    """A running fake OpenAI-compatible server; `base_url + "/v1"` is the SDK's base URL."""
    yield from _serve(FakeOpenAIServer())


@pytest.fixture
def anthropic_server() -> Iterator[FakeServer]:
    """A running fake Anthropic Messages API server; `base_url` is the SDK's base URL."""
    yield from _serve(FakeAnthropicServer())


@pytest.fixture
def gemini_server() -> Iterator[FakeServer]:
    """A running fake Gemini API server; `base_url` is the SDK's `http_options.base_url`."""
    yield from _serve(FakeGeminiServer())
