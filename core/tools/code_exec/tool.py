"""`execute_python`: which sandbox runs the model's code, and the tool itself — or why there is none.

The tool fails closed: without a working sandbox it is an `UnavailableTool` whose reason says what to
install or set, never a tool that runs code on the host. `sandbox: auto` picks E2B when its key is set,
else bubblewrap when it is installed *and* a probe run shows it can create its namespaces here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from core.config_tools import CodeExecConfig
from core.errors import ToolRetry
from core.tools.base import Tool
from core.tools.catalog import UnavailableTool
from core.tools.code_exec.bubblewrap import BWRAP_PATH, BubblewrapSandbox
from core.tools.code_exec.e2b_sandbox import E2BSandbox
from core.tools.code_exec.outcome import RunOutcome, render

TOOL_NAME = "execute_python"
DESCRIPTION = (
    "Run a Python 3 program in an isolated sandbox and read back its stdout, stderr and exit status. "
    "The sandbox has no network and none of the user's files; print() what you need to see. Limits (CPU "
    "time, memory, processes, output size, wall-clock time) stop the program with a line saying so."
)
# What makes a message call for running code, for small models that would otherwise call any tool offered.
CODE_HINT = (
    r"\b(python|code|script|program|run|execute|simulate|simulation|compute|calculate|algorithm|regex|"
    r"parse|sort|prime|fibonacci|statistics|plot)\b"
)
_MAX_CODE_CHARS = 100_000
# The tool's own deadline sits above the sandbox's wall-clock limit, so the sandbox reports its limit
# first; E2B also needs time to create and kill its sandbox over the network.
_LOCAL_MARGIN_S = 10.0
_REMOTE_MARGIN_S = 90.0


class CodeSandbox(Protocol):
    """Runs one program and reports its outcome (`BubblewrapSandbox`, `E2BSandbox`)."""

    def run(self, code: str) -> RunOutcome:
        """Run `code` as a complete program."""
        ...


def code_tools(
    config: CodeExecConfig, env: Mapping[str, str], *, bwrap_path: str = BWRAP_PATH
) -> tuple[Tool | UnavailableTool, ...]:
    """`execute_python` on the sandbox `config.sandbox` selects, or an `UnavailableTool` saying why not.

    `env` is where the E2B key is read (by the name in `config.e2b_api_key_env`), and `E2B_DOMAIN`,
    `E2B_API_URL`, `E2B_SANDBOX_URL` when set. Choosing bubblewrap costs one probe run (~50 ms).
    """
    chosen = choose_sandbox(config, env, bwrap_path=bwrap_path)
    if isinstance(chosen, str):
        return (UnavailableTool(TOOL_NAME, DESCRIPTION, chosen),)
    margin = _REMOTE_MARGIN_S if isinstance(chosen, E2BSandbox) else _LOCAL_MARGIN_S
    return (execute_python_tool(chosen, timeout_s=config.wall_timeout_s + margin),)


def choose_sandbox(config: CodeExecConfig, env: Mapping[str, str], *, bwrap_path: str) -> CodeSandbox | str:
    """The sandbox to use, or the reason (a sentence naming what to install or set) there is none."""
    key_name = config.e2b_api_key_env
    key = env.get(key_name, "").strip()
    if config.sandbox == "off":
        return (
            "turned off in config.yaml (tools.execute_python.sandbox: off); set it to auto, with bubblewrap "
            f"installed (apt install bubblewrap) or {key_name} set"
        )
    if config.sandbox == "e2b" or (config.sandbox == "auto" and key):
        return _e2b(config, env, key) if key else f"needs {key_name} (tools.execute_python.sandbox: e2b)"
    local = BubblewrapSandbox(config, bwrap_path=bwrap_path)
    missing = local.missing()
    if missing is not None:
        wanted = "bubblewrap (apt install bubblewrap)" if missing == bwrap_path else missing
        return f"needs {wanted}" + (f" or {key_name}" if config.sandbox == "auto" else "")
    problem = local.probe()
    if problem is not None:
        return (
            f"bubblewrap cannot create its sandbox on this machine ({problem}); the tool stays off rather "
            f"than run code unsandboxed; enable unprivileged user namespaces or set {key_name}"
        )
    return local


def _e2b(config: CodeExecConfig, env: Mapping[str, str], key: str) -> E2BSandbox:
    return E2BSandbox(
        config,
        api_key=key,
        domain=env.get("E2B_DOMAIN") or None,
        api_url=env.get("E2B_API_URL") or None,
        sandbox_url=env.get("E2B_SANDBOX_URL") or None,
    )


def execute_python_tool(sandbox: CodeSandbox, *, timeout_s: float) -> Tool:
    """The `execute_python` tool over `sandbox`: `{"code": "..."}` in, the rendered outcome out."""

    def execute_python(code: str) -> str:
        """Run a Python program in the sandbox (the description the model reads is DESCRIPTION).

        Args:
            code: A complete Python 3 program (not a notebook cell): print() the values you want back.
        """
        if not code.strip():
            raise ToolRetry("`code` is empty: send a complete Python program that prints its result")
        if len(code) > _MAX_CODE_CHARS:
            raise ToolRetry(f"`code` is {len(code)} characters; send at most {_MAX_CODE_CHARS}")
        return render(sandbox.run(code))

    return Tool.from_function(
        execute_python, name=TOOL_NAME, description=DESCRIPTION, timeout_s=timeout_s, use_when=CODE_HINT
    )
