"""The terminal chat over the real agent loop and a scripted model, for tests of proposals and approvals."""

from __future__ import annotations

import contextlib
import io
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, cast

from core.agent.call_guard import ToolPolicy
from core.agent.loop import AgentRunner
from core.events import RunEvent
from core.providers.fake import ScriptedProvider, Step
from core.tools.base import Tool
from core.tools.catalog import ToolCatalog
from core.tools.toolset import Toolset
from core.types import Message
from ui.shared.front_ports import Conversation
from ui.shared.tool_runner import ToolRunner
from ui.terminal.chat import Repl

Line = str | Callable[[], str]


class AgentChat:
    """The orchestrator's part the REPL uses, played by the real agent loop over a scripted model."""

    default_model = "scripted"
    model_names = ["scripted"]

    def __init__(self, runner: AgentRunner) -> None:
        self.runner = runner

    def new_session(self) -> str:
        return "s1"

    async def run_turn(self, text: str, **_: Any) -> AsyncIterator[RunEvent]:
        async for event in self.runner.run([Message("user", text)]):
            yield event


def chat_with_tools(
    tools: Sequence[Tool], steps: Sequence[Step], lines: Sequence[Line], **repl: Any
) -> tuple[str, ScriptedProvider]:
    """Run the REPL over `lines` (a callable line runs when it is read) with the agent loop offering
    `tools`; what it printed, and the scripted model (its requests)."""
    provider = ScriptedProvider(steps)
    runner = AgentRunner(provider, Toolset(list(tools)), tool_policy=ToolPolicy())
    chat = Repl(
        cast(Conversation, AgentChat(runner)),
        tools=ToolRunner(ToolCatalog.of(list(tools)), ToolPolicy()),
        **repl,
    )
    answers = iter(lines)

    def read(prompt: str) -> str:
        print(prompt, end="")
        answer = next(answers)
        return answer() if callable(answer) else answer

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        chat.run(read=read)
    return out.getvalue(), provider
