"""Lifecycle hooks (observe a run) and middleware (wrap each model call).

Hooks are observers: tracing, metrics, UI status. A hook that raises is logged and ignored, because a
broken tracer must not break the user's turn. Middleware sits around every model call of the loop:

    class CacheMiddleware:
        async def __call__(self, request: ChatRequest, call_next: CallNext) -> ModelResponse:
            if (hit := self.cache.get(key(request))) is not None:
                return hit                       # short-circuit: the model is not called
            response = await call_next(request)  # may pass a modified request on
            self.cache[key(request)] = response
            return response

The first middleware in the sequence is the outermost. When a middleware short-circuits, the loop emits
the returned text as one piece instead of streaming it. A middleware that changes the text of a streamed
response only changes `Done.answer`, not the deltas already shown.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, runtime_checkable

from core.errors import TruncatedStreamError
from core.providers.base import ChatProvider
from core.types import ChatRequest, FinishPart, ModelResponse, TextPart, ToolCall, ToolCallPart

log = logging.getLogger(__name__)

CallNext = Callable[[ChatRequest], Awaitable[ModelResponse]]


@runtime_checkable
class RunHooks(Protocol):
    """Async callbacks around one agent run, called in this order per round:

    on_iteration_start -> on_model_response -> (on_tool_call for each call, in call order ->
    on_tool_result for each call, in call order) -> on_iteration_end. on_error is called when the run
    ends with an error (provider failure, budget, unexpected exception).
    """

    async def on_iteration_start(self, round_no: int) -> None: ...

    async def on_iteration_end(self, round_no: int) -> None: ...

    async def on_model_response(self, response: ModelResponse) -> None: ...

    async def on_tool_call(self, call: ToolCall) -> None: ...

    async def on_tool_result(self, call: ToolCall, ok: bool, output: str) -> None: ...

    async def on_error(self, error: BaseException) -> None: ...


class NoopHooks:
    """Hooks that do nothing; subclass it and override only what you need."""

    async def on_iteration_start(self, round_no: int) -> None:
        return None

    async def on_iteration_end(self, round_no: int) -> None:
        return None

    async def on_model_response(self, response: ModelResponse) -> None:
        return None

    async def on_tool_call(self, call: ToolCall) -> None:
        return None

    async def on_tool_result(self, call: ToolCall, ok: bool, output: str) -> None:
        return None

    async def on_error(self, error: BaseException) -> None:
        return None


class GuardedHooks(NoopHooks):
    """Forwards to `inner` and logs (never raises) what a hook raises."""

    def __init__(self, inner: RunHooks) -> None:
        self._inner = inner

    async def _guard(self, name: str, awaitable: Awaitable[None]) -> None:
        try:
            await awaitable
        except Exception:  # a hook is an observer; its failure must not end the run
            log.exception("run hook %s failed", name)

    async def on_iteration_start(self, round_no: int) -> None:
        await self._guard("on_iteration_start", self._inner.on_iteration_start(round_no))

    async def on_iteration_end(self, round_no: int) -> None:
        await self._guard("on_iteration_end", self._inner.on_iteration_end(round_no))

    async def on_model_response(self, response: ModelResponse) -> None:
        await self._guard("on_model_response", self._inner.on_model_response(response))

    async def on_tool_call(self, call: ToolCall) -> None:
        await self._guard("on_tool_call", self._inner.on_tool_call(call))

    async def on_tool_result(self, call: ToolCall, ok: bool, output: str) -> None:
        await self._guard("on_tool_result", self._inner.on_tool_result(call, ok, output))

    async def on_error(self, error: BaseException) -> None:
        await self._guard("on_error", self._inner.on_error(error))


@runtime_checkable
class Middleware(Protocol):
    """Wraps one model call: inspect or change the request, call `call_next`, or return without calling."""

    async def __call__(self, request: ChatRequest, call_next: CallNext) -> ModelResponse: ...


def compose_middleware(middleware: Sequence[Middleware], innermost: CallNext) -> CallNext:
    """Chain middleware around `innermost`; the first item of `middleware` runs first."""
    handler = innermost
    for layer in reversed(middleware):
        handler = _bind(layer, handler)
    return handler


def _bind(layer: Middleware, call_next: CallNext) -> CallNext:
    async def call(request: ChatRequest) -> ModelResponse:
        return await layer(request, call_next)

    return call


def streaming_call(provider: ChatProvider, push: Callable[[str], None], cancel: asyncio.Event) -> CallNext:
    """The innermost handler of the middleware chain: stream `provider`, pushing text as it arrives.

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
