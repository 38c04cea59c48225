"""Discovery of local model servers against fake Ollama, LM Studio and llama.cpp servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from core.providers.discovery import describe, discover, provider_entry
from tests.fakes.model_listing_servers import (
    GarbageServer,
    LlamaCppListing,
    LMStudioListing,
    OllamaListing,
    port_of,
)


def _closed_port() -> int:
    """A loopback port nothing listens on (bound then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def servers() -> Iterator[dict[str, object]]:
    ollama = OllamaListing(("qwen2.5:7b", "llama3.2:3b")).start()
    lmstudio = LMStudioListing(("qwen2.5-7b-instruct",)).start()
    llamacpp = LlamaCppListing(("Qwen2.5-7B-Instruct-Q4_K_M.gguf",)).start()
    garbage = GarbageServer().start()
    try:
        yield {"ollama": ollama, "lmstudio": lmstudio, "llamacpp": llamacpp, "garbage": garbage}
    finally:
        for server in (ollama, lmstudio, llamacpp, garbage):
            server.stop()


def test_each_running_server_lists_its_models_in_its_own_wire_format(servers: dict) -> None:
    ports = {key: port_of(servers[key]) for key in ("ollama", "lmstudio", "llamacpp")}
    found = {s.kind: s for s in asyncio.run(discover(ports))}

    assert found["ollama"].models == ("qwen2.5:7b", "llama3.2:3b")
    assert found["lmstudio"].models == ("qwen2.5-7b-instruct",)
    assert found["llamacpp"].models == ("Qwen2.5-7B-Instruct-Q4_K_M.gguf",)
    assert found["ollama"].base_url == f"http://127.0.0.1:{ports['ollama']}/v1"
    assert all(s.running for s in found.values())


def test_a_server_that_is_down_or_answers_garbage_is_reported_not_raised(servers: dict) -> None:
    ports = {
        "ollama": port_of(servers["ollama"]),
        "lmstudio": _closed_port(),
        "llamacpp": port_of(servers["garbage"]),
    }
    found = {s.kind: s for s in asyncio.run(discover(ports))}

    assert found["ollama"].running and found["ollama"].models
    assert not found["lmstudio"].running and "not running" in (found["lmstudio"].error or "")
    assert not found["llamacpp"].running and "not as llama.cpp server does" in (found["llamacpp"].error or "")
    lines = describe(list(found.values()))
    assert any(line.startswith("Ollama at") and "qwen2.5:7b" in line for line in lines)
    assert "LM Studio: not running" in "\n".join(lines)


def test_a_found_model_becomes_a_provider_the_real_openai_client_can_chat_with(servers: dict) -> None:
    """The saved entry validates as config and answers through the OpenAI-compatible adapter."""
    from core.config import ProviderConfig
    from core.providers.registry import ADAPTERS
    from core.types import ChatRequest, Message
    from tests.fakes.openai_dialect_servers import said

    ollama = servers["ollama"]
    ollama.script(said("hello from qwen"))
    server = next(s for s in asyncio.run(discover({"ollama": port_of(ollama)})) if s.kind == "ollama")
    cfg = ProviderConfig.model_validate(provider_entry(server, "qwen2.5:7b"))
    provider = ADAPTERS[cfg.kind]("ollama", cfg, {}, 5.0)

    answer = asyncio.run(provider.complete(ChatRequest((Message("user", "hi"),), max_tokens=8)))

    assert answer.text == "hello from qwen"
    assert ollama.requests[-1].body["model"] == "qwen2.5:7b"
    assert cfg.dialect == "ollama" and cfg.price_per_mtok == (0.0, 0.0)
