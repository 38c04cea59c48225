"""The model call of the agent loop: stream one request, pushing visible text as it arrives."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from core.errors import TruncatedStreamError
from core.providers.base import ChatProvider
from core.types import ChatRequest, FinishPart, ModelResponse, TextPart, ToolCall, ToolCallPart

ModelCall = Callable[[ChatRequest], Awaitable[ModelResponse]]


def streaming_call(provider: ChatProvider, push: Callable[[str], None], cancel: asyncio.Event) -> ModelCall:
    """A model call that streams `provider`, pushing text as it arrives.

    It returns the whole response once the stream finishes, or, when `cancel` is set between two parts,
    the partial text with finish_reason "cancelled". A stream without a finish part raises
    TruncatedStreamError: half an answer is not an answer.
    """

    async def call_model(request: ChatRequest) -> ModelResponse:
        texts: list[str] = []
        calls: list[ToolCall] = []
        stream = provider.stream(request)
        try:
            async for part in stream:
                if cancel.is_set():
                    return ModelResponse("".join(texts), tuple(calls), finish_reason="cancelled")
                if isinstance(part, TextPart):
                    texts.append(part.text)
                    push(part.text)
                elif isinstance(part, ToolCallPart):
                    calls.append(part.call)
                elif isinstance(part, FinishPart):
                    text = "".join(texts)
                    return ModelResponse(text, tuple(calls), part.usage, part.model, part.finish_reason)
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:  # close the provider's generator now, not at garbage collection
                await aclose()
        raise TruncatedStreamError(provider=getattr(provider, "name", ""))

    return call_model
