"""Whether `execute_python` is offered, and the reason a user can act on when it is not (it fails closed)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config_tools import CodeExecConfig
from core.errors import ToolRetry
from core.tools.base import Tool
from core.tools.catalog import ToolCatalog, UnavailableTool
from core.tools.code_exec import TOOL_NAME, code_tools
from core.tools.code_exec.bubblewrap import BWRAP_PATH

CONFIG = CodeExecConfig(
    sandbox="auto",
    e2b_api_key_env="E2B_API_KEY",
    cpu_seconds=5,
    memory_mb=256,
    max_processes=16,
    max_output_chars=1000,
    wall_timeout_s=10.0,
)
needs_bwrap = pytest.mark.skipif(not os.access(BWRAP_PATH, os.X_OK), reason="needs bubblewrap")


def only(entries: tuple[Tool | UnavailableTool, ...]) -> Tool | UnavailableTool:
    assert len(entries) == 1 and entries[0].name == TOOL_NAME
    return entries[0]


def reason(sandbox: str, env: dict[str, str], **kw: str) -> str:
    entry = only(code_tools(CONFIG.model_copy(update={"sandbox": sandbox}), env, **kw))
    assert isinstance(entry, UnavailableTool), entry
    return entry.reason


@pytest.fixture
def failing_bwrap() -> Iterator[str]:
    """An installed bwrap that cannot create namespaces, as in a container that forbids them.

    Readable by everyone: run as root, Daemon starts bubblewrap as an unprivileged uid.
    """
    folder = Path(tempfile.mkdtemp(prefix="daemon-fake-bwrap-"))
    folder.chmod(0o755)
    path = folder / "bwrap"
    path.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    path.chmod(0o755)
    yield str(path)
    shutil.rmtree(folder)


def test_off_in_the_config_is_unavailable_with_what_to_change() -> None:
    text = reason("off", {"E2B_API_KEY": "e2b_key"})
    assert "tools.execute_python.sandbox: off" in text
    assert "apt install bubblewrap" in text and "E2B_API_KEY" in text


def test_without_bubblewrap_or_a_key_auto_names_both() -> None:
    assert reason("auto", {}, bwrap_path="/nonexistent/bwrap") == (
        "needs bubblewrap (apt install bubblewrap) or E2B_API_KEY"
    )


def test_bubblewrap_mode_without_bubblewrap_names_only_bubblewrap() -> None:
    assert reason("bubblewrap", {"E2B_API_KEY": "e2b_key"}, bwrap_path="/nonexistent/bwrap") == (
        "needs bubblewrap (apt install bubblewrap)"
    )


def test_e2b_mode_without_its_key_names_the_variable() -> None:
    assert reason("e2b", {"E2B_API_KEY": "  "}) == "needs E2B_API_KEY (tools.execute_python.sandbox: e2b)"


def test_a_bubblewrap_that_cannot_create_namespaces_leaves_the_tool_off(failing_bwrap: str) -> None:
    text = reason("auto", {}, bwrap_path=failing_bwrap)
    assert "bubblewrap cannot create its sandbox on this machine" in text
    assert "setting up uid map: Permission denied" in text
    assert "rather than run code unsandboxed" in text


def test_auto_with_a_key_uses_e2b_even_where_bubblewrap_fails(failing_bwrap: str) -> None:
    tool = only(code_tools(CONFIG, {"E2B_API_KEY": "e2b_key"}, bwrap_path=failing_bwrap))
    assert isinstance(tool, Tool)
    assert tool.timeout_s > CONFIG.wall_timeout_s  # the sandbox reports its own limit before the agent's


@needs_bwrap
def test_auto_without_a_key_uses_a_working_bubblewrap() -> None:
    tool = only(code_tools(CONFIG, {}))
    assert isinstance(tool, Tool)
    assert tool.parameters["required"] == ["code"]
    assert not tool.side_effects  # nothing it does reaches outside the sandbox
    assert "exit status: 0" in tool(code="print('hi')")


@needs_bwrap
def test_empty_or_huge_code_asks_the_model_again() -> None:
    tool = only(code_tools(CONFIG, {}))
    assert isinstance(tool, Tool)
    with pytest.raises(ToolRetry):
        tool(code="   \n")
    with pytest.raises(ToolRetry):
        tool(code="x = 1\n" * 20_000)


def test_the_catalog_lists_an_unavailable_tool_with_its_reason() -> None:
    catalog = ToolCatalog.of(code_tools(CONFIG.model_copy(update={"sandbox": "off"}), {}))
    assert TOOL_NAME not in catalog.available.names()
    assert "sandbox: off" in (catalog.reason_unavailable(TOOL_NAME) or "")
