"""Configuration of the MCP servers whose tools Daemon's agent may use (`mcp_servers` in config.yaml).

Each entry starts one server: a local program spoken to over stdio, or an HTTP endpoint. Secrets never live
in the config: `pass_env` names the variables of Daemon's own environment a stdio server receives (its API
keys), `token_env` the variable holding an HTTP server's bearer token. A server receives nothing else of
Daemon's environment beyond the basics (PATH, HOME, ...) and its literal `env`.
"""

from __future__ import annotations

from ipaddress import ip_address
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, model_validator

from core.config_memory import _Frozen

# A server name prefixes its tools' names (`<server>__<tool>`), which must fit the 64-character tool name
# rule: a short name of letters, digits, '-' and '_' leaves room for the tool's own name. No "__" inside,
# so the separator stays unambiguous.
SERVER_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,23}$"
_LOOPBACK_NAMES = ("localhost",)


class McpServerConfig(_Frozen):
    """One MCP server: how to reach it and the bounds on its tools."""

    name: str = Field(pattern=SERVER_NAME_PATTERN)
    transport: Literal["stdio", "http"]
    enabled: bool = True
    command: str | None = None  # stdio: the program (looked up on PATH) ...
    args: tuple[str, ...] = ()  # ... and its arguments
    env: dict[str, str] = {}  # stdio: literal, non-secret variables for the server
    pass_env: tuple[str, ...] = ()  # stdio: names of Daemon's environment variables handed on (keys)
    cwd: str | None = None  # stdio: the server's working directory (default: Daemon's)
    url: str | None = None  # http: the streamable HTTP endpoint, e.g. http://127.0.0.1:8765/mcp
    token_env: str | None = None  # http: the variable holding the bearer token (none: no Authorization)
    connect_timeout_s: float = Field(20.0, gt=0, le=300)  # start, handshake and tool listing
    timeout_s: float = Field(30.0, gt=0, le=600)  # one tool call
    max_output_chars: int = Field(8000, ge=100, le=200_000)  # a tool's result is cut to this

    @model_validator(mode="after")
    def _transport_fields(self) -> McpServerConfig:
        if "__" in self.name or self.name.endswith("_"):
            raise ValueError(
                f"MCP server name {self.name!r}: no '__' and no '_' at the end ('__' separates tools)"
            )
        if self.transport == "stdio":
            if not self.command:
                raise ValueError(f"MCP server {self.name!r}: a stdio server needs `command`")
            if self.url or self.token_env:
                raise ValueError(f"MCP server {self.name!r}: `url` and `token_env` are for http servers")
            return self
        if not self.url:
            raise ValueError(f"MCP server {self.name!r}: an http server needs `url`")
        if self.command or self.args or self.env or self.pass_env or self.cwd:
            raise ValueError(
                f"MCP server {self.name!r}: `command`, `args`, `env`, `pass_env`, `cwd` are for stdio"
            )
        _check_url(self.name, self.url)
        return self


def _check_url(name: str, url: str) -> None:
    """http(s) only; plain http only to this machine, so a bearer token never crosses a network in clear."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"MCP server {name!r}: url must be an http:// or https:// address, got {url!r}")
    if parts.scheme == "http" and not _is_loopback(parts.hostname):
        raise ValueError(f"MCP server {name!r}: plain http is allowed only to 127.0.0.1/localhost; use https")


def _is_loopback(host: str) -> bool:
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ip_address(host).is_loopback
    except ValueError:
        return False


def _unique_names(servers: tuple[McpServerConfig, ...]) -> tuple[McpServerConfig, ...]:
    names = [server.name for server in servers]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"MCP server names must be unique; repeated: {', '.join(repeated)}")
    return servers


McpServers = Annotated[tuple[McpServerConfig, ...], AfterValidator(_unique_names)]
"""The `mcp_servers` list of the config (AppConfig.mcp_servers)."""
