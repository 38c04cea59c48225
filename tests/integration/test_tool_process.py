"""`python main.py tool list|run` as a user runs it: real processes, the real catalog and guards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEYS = ("TAVILY_API_KEY", "WOLFRAM_APP_ID", "E2B_API_KEY", "TAVILY_BASE_URL", "WOLFRAM_BASE_URL")

pytestmark = pytest.mark.integration


def run_main(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in KEYS}  # no key: the web tools are unavailable
    env["DAEMON_DATA_DIR"] = str(tmp_path / "data")
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=tmp_path,
    )


def test_tool_run_calculator_prints_one_json_object_and_opens_no_store(tmp_path: Path) -> None:
    result = run_main(
        "tool", "run", "calculator", "--args", '{"expression":"2+2"}', "--json", tmp_path=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"ok": True, "output": "4", "error": None}
    assert not (tmp_path / "data").exists()  # a light tool needs no memory: nothing was opened


def test_tool_run_of_an_unavailable_tool_fails_with_its_reason(tmp_path: Path) -> None:
    result = run_main("tool", "run", "web_search", "--args", '{"query":"news"}', "--json", tmp_path=tmp_path)
    assert result.returncode == 1
    payload = json.loads(result.stdout)
    assert payload["ok"] is False and payload["error"] == "web_search is unavailable: needs TAVILY_API_KEY"


def test_tool_run_with_bad_arguments_is_an_input_error(tmp_path: Path) -> None:
    result = run_main("tool", "run", "calculator", "--args", "[1]", "--json", tmp_path=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith("error:") and "Traceback" not in result.stderr


@pytest.mark.slow
def test_tool_list_shows_every_tool_with_availability(tmp_path: Path) -> None:
    result = run_main("tool", "list", "--json", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    tools = {t["name"]: t for t in json.loads(result.stdout)["tools"]}
    for name in ("calculator", "current_time", "search_memory", "expand_memory", "get_full_document", "done"):
        assert tools[name]["available"] is True and tools[name]["parameters"]["type"] == "object", name
        assert tools[name]["description"]
    assert (
        tools["web_search"]["available"] is False and tools["web_search"]["reason"] == "needs TAVILY_API_KEY"
    )
    assert "WOLFRAM_APP_ID" in tools["wolfram_alpha"]["reason"]
    assert tools["recall_image"]["reason"] == "no images in memory yet"
    assert all(t["reason"] for t in tools.values() if not t["available"])
    # No tool fetches an address a model chooses (server-side request forgery into loopback or the LAN):
    # a tool that takes one needs the address check first, and this list then names it.
    addresses = ("url", "uri", "href", "link", "host", "endpoint", "address")
    fetching = {
        name
        for name, t in tools.items()
        for field in t["parameters"].get("properties", {})
        if any(word in field.lower() for word in addresses)
    }
    assert fetching == set(), fetching


@pytest.mark.slow
def test_tool_run_reaches_the_memory_tools(tmp_path: Path) -> None:
    result = run_main(
        "tool", "run", "search_memory", "--args", '{"query":"dentist"}', "--json", tmp_path=tmp_path
    )
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["ok"] is True and payload["output"]


def test_tool_list_while_another_process_holds_the_data_folder(tmp_path: Path) -> None:
    from memory.lock import DataDirLock

    (tmp_path / "data").mkdir(mode=0o700)
    lock = DataDirLock(tmp_path / "data")  # as the GUI or a chat would
    try:
        result = run_main("tool", "list", "--json", tmp_path=tmp_path)
    finally:
        lock.close()
    assert result.returncode == 0, result.stderr
    tools = {t["name"]: t for t in json.loads(result.stdout)["tools"]}
    assert tools["calculator"]["available"] is True
    assert (
        tools["search_memory"]["available"] is False
        and "data folder is in use" in tools["search_memory"]["reason"]
    )


MCP_SERVER = '''
import sys
from pathlib import Path
from mcp.server import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("notes")
MARK = Path(sys.argv[1])

@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def count(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())

@server.tool()
def forget(topic: str) -> str:
    """Forget everything about a topic (changes the server's data)."""
    MARK.write_text(topic)
    return "forgotten"

if __name__ == "__main__":
    server.run()
'''


@pytest.mark.slow
def test_a_configured_mcp_servers_tools_run_through_the_same_guards(tmp_path: Path) -> None:
    script, mark = tmp_path / "notes_server.py", tmp_path / "forgot.txt"
    script.write_text(MCP_SERVER)
    config = tmp_path / "config.yaml"
    config.write_text(
        "mcp_servers:\n"
        f"  - name: notes\n    transport: stdio\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(str(script))}, {json.dumps(str(mark))}]\n"
    )

    def tool(*args: str) -> subprocess.CompletedProcess[str]:
        return run_main("--config", str(config), "tool", *args, "--json", tmp_path=tmp_path)

    counted = tool("run", "notes__count", "--args", '{"text": "one two three"}')
    assert counted.returncode == 0, counted.stderr
    assert json.loads(counted.stdout)["output"] == "3"  # declared read-only: runs without asking

    refused = tool("run", "notes__forget", "--args", '{"topic": "Jo"}')
    assert refused.returncode == 1 and "approval" in json.loads(refused.stdout)["error"]
    assert not mark.exists()  # not declared read-only: the guard stopped it before the server saw it

    approved = tool("run", "notes__forget", "--args", '{"topic": "Jo"}', "--approve")
    assert approved.returncode == 0, approved.stderr
    assert mark.read_text() == "Jo"
