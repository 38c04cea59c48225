"""Find model servers already running on this machine: Ollama, LM Studio and a llama.cpp server.

Each is asked, concurrently and with a short timeout, for its model list on its default loopback port
(Ollama `GET /api/tags` on 11434; LM Studio `GET /v1/models` on 1234; llama.cpp's `llama-server`
`GET /v1/models` on 8080). A server that is down, slow or answers something else is reported with the
reason, never raised. `provider_entry` turns a found model into the config entry of an OpenAI-compatible
provider (all three serve `/v1/chat/completions`), which is what the wizard saves and `doctor` suggests.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ServerKind:
    """One kind of local server: how to ask it for models and how to reach its OpenAI-style API."""

    key: str  # also the provider's `dialect`
    label: str
    port: int
    models_path: str
    list_key: str  # the JSON list of models: "models" (Ollama) or "data" (OpenAI style)
    id_key: str  # each model's name field


KINDS: tuple[ServerKind, ...] = (
    ServerKind("ollama", "Ollama", 11434, "/api/tags", "models", "name"),
    ServerKind("lmstudio", "LM Studio", 1234, "/v1/models", "data", "id"),
    ServerKind("llamacpp", "llama.cpp server", 8080, "/v1/models", "data", "id"),
)
DEFAULT_PORTS: Mapping[str, int] = {kind.key: kind.port for kind in KINDS}


@dataclass(frozen=True)
class LocalServer:
    """What one probe found: the models of a running server, or why there is none usable."""

    kind: str
    label: str
    base_url: str  # the OpenAI-compatible root (…/v1)
    models: tuple[str, ...] = ()
    error: str | None = None  # None: the server answered with its models

    @property
    def running(self) -> bool:
        return self.error is None


async def discover(
    ports: Mapping[str, int] | None = None, host: str = "127.0.0.1", timeout_s: float = 0.8
) -> list[LocalServer]:
    """Probe every kind at once (`ports` overrides the default port of a kind); one result per kind."""
    import httpx

    chosen = {**DEFAULT_PORTS, **(ports or {})}
    async with httpx.AsyncClient(timeout=timeout_s, trust_env=False) as client:
        return list(await asyncio.gather(*(_probe(client, kind, host, chosen[kind.key]) for kind in KINDS)))


def discover_sync(ports: Mapping[str, int] | None = None, timeout_s: float = 0.8) -> list[LocalServer]:
    """`discover` for callers without an event loop (doctor, a GUI worker thread)."""
    return asyncio.run(discover(ports, timeout_s=timeout_s))


async def _probe(client: Any, kind: ServerKind, host: str, port: int) -> LocalServer:
    import httpx

    root = f"http://{host}:{port}"
    found = LocalServer(kind.key, kind.label, f"{root}/v1")
    try:
        response = await client.get(root + kind.models_path)
    except httpx.TimeoutException:
        return _with(found, error=f"no answer on port {port} in time")
    except httpx.HTTPError:
        return _with(found, error=f"not running (nothing on port {port})")
    if response.status_code != 200:
        return _with(found, error=f"port {port} answered HTTP {response.status_code}")
    models = _model_names(response, kind)
    if models is None:
        return _with(found, error=f"port {port} answered, but not as {kind.label} does")
    return _with(found, models=tuple(models))


def _model_names(response: Any, kind: ServerKind) -> list[str] | None:
    """The model names in a models listing, or None when the body is not that listing."""
    try:
        body = response.json()
    except ValueError:
        return None
    items = body.get(kind.list_key) if isinstance(body, dict) else None
    if not isinstance(items, list):
        return None
    names = [item.get(kind.id_key) for item in items if isinstance(item, dict)]
    return [name for name in names if isinstance(name, str) and name]


def _with(server: LocalServer, **changes: Any) -> LocalServer:
    from dataclasses import replace

    return replace(server, **changes)


def provider_entry(server: LocalServer, model: str) -> dict[str, Any]:
    """The `providers.<name>` config entry that answers with `model` from `server`."""
    return {
        "kind": "openai",
        "model": model,
        "base_url": server.base_url,
        "dialect": server.kind,
        "api_key_env": None,
        "base_url_env": None,
        "context_window": 8192,
        "price_per_mtok": [0.0, 0.0],  # runs on this machine: nothing to pay
    }


def describe(servers: list[LocalServer]) -> list[str]:
    """One line per server for a report: its models, or why it is not usable."""
    lines = []
    for server in servers:
        if server.running and server.models:
            lines.append(f"{server.label} at {server.base_url}: {', '.join(server.models)}")
        elif server.running:
            lines.append(f"{server.label} at {server.base_url}: running, but no model is installed")
        else:
            lines.append(f"{server.label}: {server.error}")
    return lines
