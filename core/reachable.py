"""Which hosts beyond this machine the current configuration may contact, and why (`doctor` lists them).

Read from the same settings the providers and tools are built from: a remote provider with its key or
base URL set (every available one: `/model` can switch to it), web search and Wolfram|Alpha with their
keys, the E2B sandbox with its key, a Chroma server, MCP servers over HTTP. With none of them, nothing
leaves the machine: the embedded model, MiniLM, spaCy and every store run here. Loopback hosts (a local
Ollama, a fake server) are listed apart: they never leave the machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlparse

from core.config import AppConfig

DEFAULT_HOSTS = {
    "openai": "api.openai.com",
    "anthropic": "api.anthropic.com",
    "gemini": "generativelanguage.googleapis.com",
}
TAVILY_HOST = "api.tavily.com"
WOLFRAM_HOST = "www.wolframalpha.com"
E2B_DOMAIN = "e2b.app"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})


@dataclass(frozen=True)
class Contact:
    """One host Daemon may connect to, and what in the configuration makes it."""

    host: str
    why: str

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)


def is_loopback(host: str) -> bool:
    return host in LOOPBACK_HOSTS or host.startswith("127.")


def contacts(config: AppConfig, env: Mapping[str, str]) -> list[Contact]:
    """Every host the configuration may contact, remote ones first, each once with its first reason."""
    found = [*_providers(config, env), *_tools(config, env), *_memory(config), *_mcp(config)]
    unique = {contact.host: contact for contact in reversed(found)}  # the first reason of each host wins
    return sorted(unique.values(), key=lambda c: (c.loopback, c.host))


def _host(url: str | None, default: str) -> str:
    return (urlparse(url).hostname if url else None) or default


def _providers(config: AppConfig, env: Mapping[str, str]) -> list[Contact]:
    out = []
    for name, cfg in config.providers.items():
        if cfg.kind not in DEFAULT_HOSTS:
            continue  # the embedded model and the echo model run in this process
        key = env.get(cfg.api_key_env or "") or (env.get("GOOGLE_API_KEY") if cfg.kind == "gemini" else None)
        base_url = cfg.base_url or (env.get(cfg.base_url_env) if cfg.base_url_env else None)
        if key or base_url:
            out.append(
                Contact(_host(base_url, DEFAULT_HOSTS[cfg.kind]), f"the {name} provider ({cfg.model})")
            )
    return out


def _tools(config: AppConfig, env: Mapping[str, str]) -> list[Contact]:
    tools, out = config.tools, []
    search = tools.web_search
    search_url = env.get(search.base_url_env)
    if (env.get(search.api_key_env) or search_url) and search.daily_credit_limit != 0:
        out.append(Contact(_host(search_url, TAVILY_HOST), "web search (Tavily), when a question needs it"))
    wolfram = tools.wolfram_alpha
    wolfram_url = env.get(wolfram.base_url_env)
    if env.get(wolfram.app_id_env) or wolfram_url:
        out.append(Contact(_host(wolfram_url, WOLFRAM_HOST), "Wolfram|Alpha, when a question needs it"))
    sandbox = tools.execute_python
    if sandbox.sandbox in ("auto", "e2b") and env.get(sandbox.e2b_api_key_env):
        domain = env.get("E2B_DOMAIN") or E2B_DOMAIN
        out.append(Contact(f"*.{domain}", "the E2B sandbox, when the model runs Python"))
    return out


def _memory(config: AppConfig) -> list[Contact]:
    if config.memory.chroma_host:
        return [Contact(config.memory.chroma_host, "the Chroma server that holds memory")]
    return []


def _mcp(config: AppConfig) -> list[Contact]:
    return [
        Contact(_host(server.url, "?"), f"the MCP server {server.name}")
        for server in config.mcp_servers
        if server.enabled and server.transport == "http"
    ]


def describe_contacts(found: list[Contact]) -> str:
    """One line for people: the hosts beyond this machine, or that there are none."""
    remote = [f"{c.host} ({c.why})" for c in found if not c.loopback]
    local = [c.host for c in found if c.loopback]
    text = "; ".join(remote) if remote else "none: nothing leaves this machine"
    return f"{text}; on this machine only: {', '.join(sorted(set(local)))}" if local else text
