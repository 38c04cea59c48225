"""A request's work, cancelled when its HTTP client goes away: the API's and the control routes' turns are
journaled as cancelled instead of running on for nobody."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from contextlib import suppress
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from starlette.requests import Request

_T = TypeVar("_T")


async def until_disconnect(request: Request, work: Awaitable[_T]) -> _T | None:
    """`work`'s result, or None when the client disconnects first (then `work` is cancelled)."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
        if not task.done():
            task.cancel()
    with suppress(asyncio.CancelledError):
        return await task
    return None


async def _disconnected(request: Request) -> None:
    """Return once the client has gone (after the body, the next ASGI message is the disconnect)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
