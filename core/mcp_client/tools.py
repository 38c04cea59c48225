"""The tools of the user's MCP servers as Daemon tools: `mcp_tools(servers, runtime, env)`.

Each server in `mcp_servers` is started (or reached), its tools are listed and each becomes a `Tool` named
`<server>__<tool>`, with the server's JSON schema, the server's timeout and a bound on its output. A server
that cannot start, or a tool whose name or schema cannot be offered, becomes an `UnavailableTool` with the
reason. Everything a server says (descriptions, results) is untrusted text: descriptions are clipped and
marked as the server's, results are rendered as plain text, cut to the bound, and the agent fences them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from core.config_mcp import McpServerConfig
from core.errors import ToolError
from core.mcp_client.runtime import McpRuntime, McpUnavailable, ServerSpec
from core.text import clip, sanitize_untrusted
from core.tools.base import Tool
from core.tools.catalog import UnavailableTool

logger = logging.getLogger(__name__)

SEPARATOR = "__"
MAX_NAME = 64  # core.tools.base: provider tool names are 1-64 of [A-Za-z0-9_-]
MAX_DESCRIPTION = 1024  # a server's description reaches the model's tool list: keep it short
_INVALID_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def mcp_tools(
    servers: Sequence[McpServerConfig], runtime: McpRuntime, env: Mapping[str, str]
) -> tuple[Tool | UnavailableTool, ...]:
    """The tools of every configured MCP server, namespaced `<server>__<tool>`, in config order.

    Enabled servers are started concurrently through `runtime` (which keeps their sessions open until
    `runtime.close()`); `env` is Daemon's environment, read only for the names a server's `pass_env` and
    `token_env` give. A disabled server or one that fails to start yields one `UnavailableTool` (named after
    the server) with the reason.
    """
    enabled = [s for s in servers if s.enabled]
    with ThreadPoolExecutor(max_workers=max(1, min(8, len(enabled)))) as pool:
        listed = {s.name: pool.submit(_connect, s, runtime, env) for s in enabled}
    out: list[Tool | UnavailableTool] = []
    for server in servers:
        if not server.enabled:
            out.append(_unavailable_server(server, "disabled in the config (mcp_servers: enabled: false)"))
            continue
        try:
            tools = listed[server.name].result()
        except McpUnavailable as exc:
            logger.warning("MCP server %s is unavailable: %s", server.name, exc)
            out.append(_unavailable_server(server, f"the MCP server did not start: {exc}"))
            continue
        out.extend(wrap_tools(server, tools, runtime))
    return tuple(out)


def server_spec(server: McpServerConfig, env: Mapping[str, str]) -> ServerSpec:
    """How the runtime reaches `server`; raises `McpUnavailable` when a variable it needs is not set."""
    if server.transport == "http":
        headers: dict[str, str] = {}
        if server.token_env:
            token = env.get(server.token_env, "").strip()
            if not token:
                raise McpUnavailable(f"needs {server.token_env} (its bearer token) in the environment")
            headers["Authorization"] = f"Bearer {token}"
        return ServerSpec(server.name, url=server.url, headers=headers)
    missing = [name for name in server.pass_env if name not in env]
    if missing:
        raise McpUnavailable(f"needs {', '.join(missing)} in the environment (pass_env)")
    passed = {name: env[name] for name in server.pass_env}
    return ServerSpec(
        server.name,
        command=server.command,
        args=server.args,
        env={**server.env, **passed},
        cwd=server.cwd,
    )


def _connect(server: McpServerConfig, runtime: McpRuntime, env: Mapping[str, str]) -> list[Any]:
    return runtime.connect(server_spec(server, env), server.connect_timeout_s)


def wrap_tools(
    server: McpServerConfig, listed: Sequence[Any], runtime: McpRuntime
) -> list[Tool | UnavailableTool]:
    """Each listed `mcp.types.Tool` as a Daemon tool (or as unavailable, with why)."""
    out: list[Tool | UnavailableTool] = []
    taken: set[str] = set()
    for remote in listed:
        name = tool_name(server.name, str(remote.name), taken)
        taken.add(name)
        description = describe(server.name, remote.description or remote.title or "")
        problem = schema_problem(remote.input_schema)
        if problem is not None:
            out.append(UnavailableTool(name, description, f"its argument schema cannot be used: {problem}"))
            continue
        call = _caller(runtime, server, str(remote.name))
        out.append(
            Tool(
                name,
                description,
                dict(remote.input_schema),
                call,
                timeout_s=server.timeout_s,
                side_effects=not declares_read_only(remote),
            )
        )
    return out


def declares_read_only(remote: Any) -> bool:
    """Whether the server says the tool changes nothing (`readOnlyHint`). MCP's default is "may change
    things", so a tool without the hint is treated as having side effects: the agent only proposes a call to
    it and the user approves. The hint comes from a server the user chose to configure, so it is trusted."""
    annotations = getattr(remote, "annotations", None)
    return bool(annotations is not None and getattr(annotations, "read_only_hint", None) is True)


def tool_name(server: str, remote: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """`<server>__<tool>` within the 64-character rule: characters a provider refuses become '_'; a name
    that is too long, or that collides with one already taken, is cut and ends with a short hash of the
    original so it stays unique and stable across runs."""
    clean = _INVALID_NAME_CHARS.sub("_", remote) or "tool"
    name = f"{server}{SEPARATOR}{clean}"
    if len(name) <= MAX_NAME and name not in taken and clean == remote:
        return name
    digest = hashlib.sha256(remote.encode("utf-8")).hexdigest()[:8]
    head = name[: MAX_NAME - len(digest) - 1] if len(name) + len(digest) + 1 > MAX_NAME else name
    return f"{head}_{digest}"


def describe(server: str, text: str) -> str:
    """The description a model sees: marked as the server's, without injection carriers, clipped."""
    body = clip(" ".join(sanitize_untrusted(text).split()), MAX_DESCRIPTION)
    return f"[MCP server {server}] {body}" if body else f"[MCP server {server}] (no description)"


def schema_problem(schema: Any) -> str | None:
    """Why a server's input schema cannot be offered and checked (None: it can)."""
    import jsonschema

    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        return "the arguments are not described as a JSON object"
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return clip(str(exc.message), 200)
    return None


def _caller(runtime: McpRuntime, server: McpServerConfig, remote: str) -> Any:
    """The async function the agent calls: forwards the arguments, renders the result as bounded text."""

    async def call(**arguments: Any) -> str:
        from mcp.shared.exceptions import MCPError

        try:
            result = await runtime.call(server.name, remote, arguments, server.timeout_s)
        except McpUnavailable as exc:
            raise ToolError(f"MCP server {server.name} is unavailable: {exc}") from None
        except MCPError as exc:
            raise ToolError(f"MCP server {server.name}: {clip(str(exc), 500)}") from None
        text = render_result(result, server.max_output_chars)
        if getattr(result, "is_error", False):
            raise ToolError(text)
        return text

    return call


def render_result(result: Any, limit: int) -> str:
    """A `CallToolResult` as plain text within `limit` characters: text blocks as they are, structured
    content as JSON when there is no text, other blocks (images, audio, resources) named, not inlined."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or ():
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(block.text))
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            parts.append(str(text) if text is not None else f"[binary resource {resource.uri} omitted]")
        elif kind == "resource_link":
            parts.append(f"[resource link: {block.uri}]")
        else:
            parts.append(f"[{kind or 'unknown'} content ({getattr(block, 'mime_type', '?')}) omitted]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    text = "\n".join(parts) if parts else "(no output)"
    return clip(text, limit, keep_tail=True)


def _unavailable_server(server: McpServerConfig, reason: str) -> UnavailableTool:
    return UnavailableTool(server.name, f"the tools of MCP server {server.name}", reason)
