"""The `mcp_servers` section: what an entry needs per transport, names that fit the tool-name rule, and
plain http only to this machine. Errors arrive as the config loader's one-line `ConfigError`."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.config import AppConfig, load_config
from core.config_mcp import McpServerConfig
from core.errors import ConfigError


def load_with(tmp_path: Path, yaml_text: str) -> AppConfig:
    user = tmp_path / "user.yaml"
    user.write_text(yaml_text)
    return load_config(user, {})


def test_the_committed_config_has_no_servers() -> None:
    assert load_config(None, {}).mcp_servers == ()


def test_a_user_file_adds_stdio_and_http_servers(tmp_path: Path) -> None:
    config = load_with(
        tmp_path,
        "mcp_servers:\n"
        "  - {name: files, transport: stdio, command: npx, args: [-y, server-filesystem, /notes],"
        " pass_env: [GITHUB_TOKEN], timeout_s: 12}\n"
        "  - {name: remote, transport: http, url: 'https://mcp.example.org/mcp', token_env: REMOTE_TOKEN,"
        " enabled: false}\n",
    )
    files, remote = config.mcp_servers
    assert (files.command, files.args, files.pass_env, files.timeout_s) == (
        "npx",
        ("-y", "server-filesystem", "/notes"),
        ("GITHUB_TOKEN",),
        12,
    )
    assert (remote.url, remote.token_env, remote.enabled) == (
        "https://mcp.example.org/mcp",
        "REMOTE_TOKEN",
        False,
    )


@pytest.mark.parametrize(
    ("entry", "complaint"),
    [
        ("{name: a, transport: stdio}", "needs `command`"),
        ("{name: a, transport: http}", "needs `url`"),
        ("{name: a, transport: stdio, command: x, url: 'http://127.0.0.1:1/mcp'}", "are for http servers"),
        ("{name: a, transport: http, url: 'http://127.0.0.1:1/mcp', command: x}", "are for stdio"),
        ("{name: a, transport: http, url: 'http://example.org/mcp'}", "plain http is allowed only"),
        ("{name: a, transport: http, url: 'ftp://127.0.0.1/mcp'}", "http:// or https://"),
        ("{name: 'my__files', transport: stdio, command: x}", "no '__'"),
        ("{name: 'has space', transport: stdio, command: x}", "name"),
        ("{name: 'a-very-long-server-name-indeed', transport: stdio, command: x}", "name"),
        ("{name: a, transport: pipe, command: x}", "transport"),
        ("{name: a, transport: stdio, command: x, timeout_s: 0}", "timeout_s"),
    ],
)
def test_a_bad_entry_is_a_clear_config_error(tmp_path: Path, entry: str, complaint: str) -> None:
    with pytest.raises(ConfigError, match="mcp_servers") as error:
        load_with(tmp_path, f"mcp_servers:\n  - {entry}\n")
    assert complaint in str(error.value)


def test_server_names_are_unique(tmp_path: Path) -> None:
    twice = "  - {name: files, transport: stdio, command: x}\n" * 2
    with pytest.raises(ConfigError, match="repeated: files"):
        load_with(tmp_path, "mcp_servers:\n" + twice)


def test_loopback_http_is_allowed_without_tls() -> None:
    for url in ("http://127.0.0.1:8765/mcp", "http://localhost:8765/mcp", "http://[::1]:8765/mcp"):
        assert McpServerConfig(name="local", transport="http", url=url).url == url
