"""Scripted and echo providers for tests, eval dry runs and the UI demo mode.

`ScriptedProvider` fails loudly: a call beyond the script raises, and `assert_complete()` catches steps
that were never used, so a test cannot pass by accident.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from core.errors import ProviderError
from core.prompt.sections import users_words
from core.providers.base import ProviderProfile
from core.types import (
    ChatRequest,
    FinishPart,
    ModelResponse,
    StreamPart,
    TextPart,
    ToolCall,
    ToolCallPart,
    Usage,
)

Step = ModelResponse | str | BaseException | Callable[[ChatRequest], ModelResponse]


def text_response(text: str, model: str = "scripted") -> ModelResponse:
    """A plain answer with a rough token count, for scripts."""
    return ModelResponse(text=text, usage=Usage(10, max(1, len(text) // 4)), model=model)


def tool_response(*calls: ToolCall, text: str = "", model: str = "scripted") -> ModelResponse:
    """A response that asks for tool calls."""
    return ModelResponse(
        text=text, tool_calls=tuple(calls), usage=Usage(10, 5), model=model, finish_reason="tool_calls"
    )


@dataclass
class ScriptedProvider:
    """Answers each call with the next scripted step; records every request it received."""

    steps: Sequence[Step]
    name: str = "scripted"
    model: str = "scripted"
    profile: ProviderProfile = field(default_factory=lambda: ProviderProfile(native_tools=True))
    chunk_size: int = 8
    truncate_stream: bool = False
    requests: list[ChatRequest] = field(default_factory=list)

    def _next(self, request: ChatRequest) -> ModelResponse:
        self.requests.append(request)
        index = len(self.requests) - 1
        if index >= len(self.steps):
            raise AssertionError(f"ScriptedProvider got call #{index + 1} but has {len(self.steps)} steps")
        step = self.steps[index]
        if isinstance(step, BaseException):
            raise step
        if isinstance(step, str):
            return text_response(step, self.model)
        if isinstance(step, ModelResponse):
            return step
        return step(request)

    async def complete(self, request: ChatRequest) -> ModelResponse:
        return self._next(request)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        response = self._next(request)
        text = response.text
        for start in range(0, len(text), self.chunk_size):
            yield TextPart(text[start : start + self.chunk_size])
        for call in response.tool_calls:
            yield ToolCallPart(call)
        if not self.truncate_stream:
            yield FinishPart(response.finish_reason, response.usage, response.model or self.model)

    @property
    def remaining(self) -> int:
        return len(self.steps) - len(self.requests)

    def assert_complete(self) -> None:
        """Fail if some scripted steps were never consumed."""
        if self.remaining:
            raise AssertionError(f"ScriptedProvider has {self.remaining} unused step(s)")


@dataclass
class EchoProvider:
    """Answers with the user's last message (or the whole prompt with `full=True`). Never fails."""

    name: str = "echo"
    model: str = "echo"
    full: bool = False
    profile: ProviderProfile = field(default_factory=lambda: ProviderProfile(native_tools=False))

    def _answer(self, request: ChatRequest) -> str:
        if self.full:
            return "\n".join(f"{m.role}: {m.content}" for m in request.messages)
        users = [m.content for m in request.messages if m.role == "user"]
        # An assembled prompt ends with the user's own words after the query marker: echo those.
        return users_words(users[-1]) if users else ""

    async def complete(self, request: ChatRequest) -> ModelResponse:
        text = self._answer(request)
        return ModelResponse(text=text, usage=Usage(len(text) // 4, len(text) // 4), model=self.model)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        response = await self.complete(request)
        for word in response.text.split(" "):
            yield TextPart(word + " ")
        yield FinishPart("stop", response.usage, self.model)


@dataclass
class FailingProvider:
    """Always raises the given error; used to test retries and fallback chains."""

    error: ProviderError
    name: str = "failing"
    model: str = "failing"
    profile: ProviderProfile = field(default_factory=ProviderProfile)
    calls: int = 0

    async def complete(self, request: ChatRequest) -> ModelResponse:
        self.calls += 1
        raise self.error

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        self.calls += 1
        raise self.error
        yield  # pragma: no cover - makes this an async generator
