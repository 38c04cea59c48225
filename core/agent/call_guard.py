"""The guards every tool call passes before it runs, in the agent loop and in `tool run` alike.

In order, for each call the model (or the command line) asks for:

0. **allowlist**: a subagent may call only the tools its allowlist names; any other call does not run
   and the model is told which it may use.
1. **budget**: at most `budgets[tool]` calls of that tool per turn (`tools.max_calls_per_turn`; tools not
   named get `default_budget`). Over budget, the call does not run and the model is told so.
2. **exfiltration**: a call to a tool that reaches outside this machine may not carry the user's private
   text (core/agent/exfiltration.py). Tools named in `local_tools` are not watched.
3. **approval**: a tool with `side_effects` never runs inside the loop; it becomes a proposal the front end
   shows (with the tool's preview of what it would do; arguments the preview refuses go back to the model
   instead), and runs only once the user approves it (`approved=True`: `tool run NAME --approve`, or the
   REPL's y/N prompt).

The verdicts are decided in code, never by the model: a prompt-injected model can ask for anything, and
the guard is what stops it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from core.agent.exfiltration import ExfiltrationGuard
from core.errors import ToolRetry, UserInputError
from core.tools.base import Tool
from core.types import ToolCall

Action = Literal["run", "block", "propose"]

PROPOSED_NOTE = (
    "Not run: {tool} changes something outside this conversation, so Daemon showed the call to the user "
    "to approve or reject. Tell the user what you proposed and why; do not call it again this turn."
)
NOT_ALLOWED_NOTE = "Not run: {tool} is not among the tools this agent may use ({allowed})."
OVER_BUDGET_NOTE = (
    "Not run: the budget of {budget} {tool} call{s} per turn is used up. Answer with what you have."
)


@dataclass(frozen=True)
class ToolPolicy:
    """What the composition root decides once about tools, for every run.

    Attributes:
        budgets: calls allowed per turn, per tool name (`tools.max_calls_per_turn`).
        default_budget: the budget of a tool not named in `budgets` (None: no per-tool cap).
        local_tools: tools whose calls never leave this machine (the exfiltration guard skips them).
        memory_tools: tools that read the user's memory and documents: the gate prefers them while the user
            is recalling, and their results count as private text for the rest of the run.
        web_tools: tools that search the web.
        allowed_tools: the only tools a call may name (a subagent's allowlist); None: no such limit.
    """

    budgets: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    default_budget: int | None = None
    local_tools: frozenset[str] = frozenset()
    memory_tools: frozenset[str] = frozenset()
    web_tools: frozenset[str] = frozenset()
    allowed_tools: frozenset[str] | None = None  # a subagent's allowlist (None: every tool offered)

    def budget_of(self, name: str) -> int | None:
        """Calls of tool `name` allowed per turn (None: no per-tool cap)."""
        return self.budgets.get(name, self.default_budget)


@dataclass(frozen=True)
class Verdict:
    """What happens to one call: "run", "block" (`message` goes to the model) or "propose"."""

    action: Action
    message: str = ""
    preview: str = ""  # a proposed call's own words for what it would do (the tool's `preview`)


@dataclass
class CallReview:
    """The guards of one run (one turn, or one `tool run`): counts calls and learns tool results."""

    policy: ToolPolicy
    exfiltration: ExfiltrationGuard = field(default_factory=ExfiltrationGuard)
    approved: bool = False  # the user approved side effects up front (`tool run --approve`)
    _counts: Counter[str] = field(default_factory=Counter, init=False)

    def review(self, call: ToolCall, tool: Tool | None) -> Verdict:
        """The verdict for `call`; an unknown tool runs (execution reports it to the model)."""
        allowed = self.policy.allowed_tools
        if allowed is not None and call.name not in allowed:
            listed = ", ".join(sorted(allowed)) or "none"
            return Verdict("block", NOT_ALLOWED_NOTE.format(tool=call.name, allowed=listed))
        if tool is None:
            return Verdict("run")
        budget = self.policy.budget_of(call.name)
        if budget is not None and self._counts[call.name] >= budget:
            note = OVER_BUDGET_NOTE.format(budget=budget, tool=call.name, s="" if budget == 1 else "s")
            return Verdict("block", note)
        self._counts[call.name] += 1
        outgoing = call.name not in self.policy.local_tools
        if outgoing and (blocked := self.exfiltration.check(call.name, call.arguments)) is not None:
            return Verdict("block", blocked)
        if tool.side_effects and not self.approved:
            try:
                preview = tool.describe_call(call.arguments)
            except (ToolRetry, UserInputError) as unusable:  # the model asks the user rather than propose it
                return Verdict("block", f"Not proposed: {unusable}")
            return Verdict("propose", PROPOSED_NOTE.format(tool=call.name), preview)
        return Verdict("run")

    def observe(self, call: ToolCall, output: str) -> None:
        """Learn a result the model read (a memory tool's counts as private text from now on)."""
        self.exfiltration.observe_result(output, private=call.name in self.policy.memory_tools)
