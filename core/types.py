"""Neutral value types shared by providers, tools, the agent loop and front ends.

These are plain frozen dataclasses: no vendor wire types leak into the core, and identity (turn ids,
session ids) is a storage concern that lives in the journal, not here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """One request by the model to run a tool."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ImageData:
    """An image sent with a user message to a vision model: its bytes (already downscaled) and type."""

    data: bytes = field(repr=False)
    media_type: str = "image/jpeg"
    label: str = ""  # where it came from ("attached: beach.jpg", "recalled: img-...") for logs and tests


@dataclass(frozen=True)
class Message:
    """One chat message. Tool results are `role="tool"` messages carrying `tool_call_id`.

    `images` go only to a provider whose profile says `vision`; every other provider sends the text alone."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    images: tuple[ImageData, ...] = ()


@dataclass(frozen=True)
class ToolSpec:
    """What a provider needs to offer a tool to a model: name, description, JSON schema of arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class Usage:
    """Token counts and cost of one or more model calls."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cost_usd + other.cost_usd,
        )

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def as_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "cost_usd": round(self.cost_usd, 6),
        }


@dataclass(frozen=True)
class ChatRequest:
    """Everything a provider needs for one call.

    `tool_choice` is None (model decides), "none", "required", or a tool name to force.
    `response_schema` asks for JSON output matching the schema where the provider can constrain it.
    """

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 1024
    temperature: float = 0.7
    tool_choice: str | None = None
    response_schema: dict[str, Any] | None = None
    stop: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModelResponse:
    """A complete answer from a provider."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    model: str = ""
    finish_reason: str = "stop"


# --- Streaming parts a provider yields. A stream must end with exactly one FinishPart; a stream that
# ends without one was cut off and the wrapper raises TruncatedStreamError instead of returning half an
# answer.


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ToolCallPart:
    """A complete tool call (adapters accumulate the vendor's argument deltas before yielding)."""

    call: ToolCall


@dataclass(frozen=True)
class FinishPart:
    finish_reason: str
    usage: Usage = Usage()
    model: str = ""


StreamPart = TextPart | ToolCallPart | FinishPart
