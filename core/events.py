"""Typed events an agent run and a user turn emit; the CLI, GUI and API render them.

Every run ends with exactly one `Done` or one `RunError` event.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.types import ToolCall, Usage


@dataclass(frozen=True)
class TextDelta:
    """A piece of the answer text, in order."""

    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    call: ToolCall


@dataclass(frozen=True)
class ToolCallEnded:
    """A tool call finished; `ok` is False when the output is an error message sent back to the model."""

    call: ToolCall
    ok: bool
    output: str
    elapsed_ms: float = 0.0


@dataclass(frozen=True)
class ToolProposal:
    """A call with side effects the model asked for: it did not run. The front end shows it and the user
    approves (then it runs through the same guards, e.g. `tool run NAME --approve`) or rejects it."""

    call: ToolCall
    description: str = ""  # the tool's description, so the user can judge what it would do
    preview: str = ""  # what this call would do, in words ("Remind you Thu 10 Dec at 09:00: …"), if it says


@dataclass(frozen=True)
class UsageUpdate:
    """Usage of one model call and the running total of the run."""

    call: Usage
    total: Usage


@dataclass(frozen=True)
class Progress:
    """A human-readable status line ("thinking", "compacting history", ...)."""

    stage: str
    detail: str = ""


@dataclass(frozen=True)
class Done:
    """The run finished. `exit_reason` is "answer", "max_rounds", "budget" or "cancelled"."""

    answer: str
    exit_reason: str = "answer"
    usage: Usage = Usage()
    model: str = ""
    tool_calls: tuple[dict[str, Any], ...] = ()
    citations: tuple[dict[str, Any], ...] = ()
    turn_id: str = ""
    session_id: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunError:
    """The run failed; `message` is for the user."""

    message: str
    kind: str = "error"


RunEvent = (
    TextDelta | ToolCallStarted | ToolCallEnded | ToolProposal | UsageUpdate | Progress | Done | RunError
)
