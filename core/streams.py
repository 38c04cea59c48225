"""Closing an async stream where it is consumed, never later in the garbage collector.

Ports declare their event streams as `AsyncIterator` (any async iterator will do, a test's fake included),
but the real ones are async generators: closing one at once runs its cleanup (a turn is journalled as
cancelled, a model stops generating). `contextlib.aclosing` needs a type that promises `aclose`; a port's
stream does not, so `closing_stream` closes the stream when it has `aclose`, exactly as `aclosing` would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Generic, TypeVar

T = TypeVar("T")


class _ClosingStream(Generic[T]):
    def __init__(self, stream: AsyncIterator[T]) -> None:
        self._stream = stream

    async def __aenter__(self) -> AsyncIterator[T]:
        return self._stream

    async def __aexit__(self, *exc_info: object) -> None:
        close = getattr(self._stream, "aclose", None)
        if close is not None:
            await close()


def closing_stream(stream: AsyncIterator[T]) -> _ClosingStream[T]:
    """`contextlib.aclosing` for a port's stream: `async with closing_stream(run) as events: ...`."""
    return _ClosingStream(stream)
