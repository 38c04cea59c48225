"""Sandboxed Python for the agent: the `execute_python` tool on a local bubblewrap sandbox or E2B.

`code_tools(config, env)` is the one entry point `main.py` composes; it returns the tool, or an
`UnavailableTool` with the reason when no sandbox can run here (the tool fails closed).
"""

from core.tools.code_exec.tool import TOOL_NAME, code_tools

__all__ = ["TOOL_NAME", "code_tools"]
