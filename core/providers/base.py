"""The one provider protocol every model adapter, wrapper and fake implements."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from core.types import ChatRequest, ModelResponse, StreamPart


@dataclass(frozen=True)
class ProviderProfile:
    """Facts about a model that the agent loop and prompt builder plan around.

    `native_tools`: the API accepts tool schemas and returns structured tool calls; otherwise the agent
    loop uses the XML-marker protocol. `json_schema`: the provider can constrain output to a JSON schema.
    """

    native_tools: bool = True
    vision: bool = False
    context_window: int = 8192
    streaming: bool = True
    json_schema: bool = False
    local: bool = False


@runtime_checkable
class ChatProvider(Protocol):
    """An async chat model.

    `stream` yields `TextPart`/`ToolCallPart` items and ends with one `FinishPart`. Implementations raise
    `ProviderError` (with `retryable` set) for failures; they never return an error string as an answer.
    """

    name: str
    model: str
    profile: ProviderProfile

    async def complete(self, request: ChatRequest) -> ModelResponse: ...

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]: ...


async def collect_stream(stream: AsyncIterator[StreamPart]) -> ModelResponse:
    """Drain a stream into a `ModelResponse`; raise `TruncatedStreamError` if it never finished."""
    from core.errors import TruncatedStreamError
    from core.types import FinishPart, TextPart, ToolCallPart

    texts: list[str] = []
    calls = []
    async for part in stream:
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif isinstance(part, ToolCallPart):
            calls.append(part.call)
        elif isinstance(part, FinishPart):
            return ModelResponse(
                text="".join(texts),
                tool_calls=tuple(calls),
                usage=part.usage,
                model=part.model,
                finish_reason=part.finish_reason,
            )
    raise TruncatedStreamError()


async def stream_from_complete(provider: ChatProvider, request: ChatRequest) -> AsyncIterator[StreamPart]:
    """A stream for providers that can only answer whole: one text part, the calls, then finish."""
    from core.types import FinishPart, TextPart, ToolCallPart

    response = await provider.complete(request)
    if response.text:
        yield TextPart(response.text)
    for call in response.tool_calls:
        yield ToolCallPart(call)
    yield FinishPart(response.finish_reason, response.usage, response.model)
