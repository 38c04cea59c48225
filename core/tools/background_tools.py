"""The agent's tools over background tasks: `start_background_task` (proposed: it spends time and maybe
money, so the user approves), `list_background_tasks`, `cancel_background_task` (proposed too)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from core.errors import ToolRetry, UserInputError
from core.tools.base import Tool

BACKGROUND_TOOL_NAMES = frozenset(
    {"start_background_task", "list_background_tasks", "cancel_background_task"}
)
BACKGROUND_HINT = (
    r"\b(background|research|look into|dig into|find out|long|later|while I|report back|tasks?)\b"
)


class TaskView(Protocol):
    """A background task as the tools show it."""

    @property
    def id(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def state(self) -> str: ...

    @property
    def progress(self) -> Mapping[str, Any]: ...


class BackgroundDesk(Protocol):
    """What the tools need from the background runner."""

    def submit(self, prompt: str, agent: str, *, origin: str, title: str = "") -> TaskView: ...

    def cancel(self, task_id: str) -> TaskView: ...

    def budget_of(self, agent: str) -> str: ...

    def tasks(self) -> Sequence[TaskView]: ...


def background_tools(desk: BackgroundDesk, default_agent: str) -> tuple[Tool, ...]:
    """The background task tools; `default_agent` is the subagent a task goes to unless named."""

    def read(arguments: dict[str, Any]) -> tuple[str, str]:
        task = " ".join(str(arguments.get("task", "")).split())
        if not task:
            raise ToolRetry("say what the background task should do (`task`)")
        agent = str(arguments.get("agent") or default_agent)
        try:
            budget = desk.budget_of(agent)
        except UserInputError as unknown:
            raise ToolRetry(str(unknown)) from None
        return task, f"{agent}, {budget}"

    def preview_start(arguments: dict[str, Any]) -> str:
        task, about = read(arguments)
        return f"Run in the background ({about}): {task}"

    def start_background_task(task: str, agent: str = "") -> str:
        """Hand long work (research over memory and the web) to a subagent that runs in the background;
        the user approves first, sees its progress, and gets the result in the chat when it is done.

        Args:
            task: what to do, in full (the subagent sees nothing else).
            agent: which subagent (empty: the default).
        """
        words, _ = read({"task": task, "agent": agent})
        started = desk.submit(words, agent or default_agent, origin="chat")
        return f"Background task {started.id} queued: {started.title}"

    def list_background_tasks() -> str:
        """List the background tasks, newest first, with their state and progress."""
        tasks = desk.tasks()
        if not tasks:
            return "No background tasks."
        return "\n".join(f"{t.id} [{t.state}] {t.title} {dict(t.progress) or ''}".rstrip() for t in tasks)

    def preview_cancel(arguments: dict[str, Any]) -> str:
        wanted = str(arguments.get("task_id", "")).strip()
        found = next((t for t in desk.tasks() if t.id == wanted and t.state in ("queued", "running")), None)
        if found is None:
            raise ToolRetry(
                f"no queued or running background task {wanted!r}; list_background_tasks shows them"
            )
        return f"Stop the background task “{found.title}”"

    def cancel_background_task(task_id: str) -> str:
        """Stop one background task (the user approves first).

        Args:
            task_id: its id, as list_background_tasks shows it.
        """
        stopped = desk.cancel(task_id)
        return f"Background task {stopped.id}: {stopped.state}"

    hint = BACKGROUND_HINT
    return (
        Tool.from_function(start_background_task, use_when=hint, side_effects=True, preview=preview_start),
        Tool.from_function(list_background_tasks, use_when=hint),
        Tool.from_function(cancel_background_task, use_when=hint, side_effects=True, preview=preview_cancel),
    )
