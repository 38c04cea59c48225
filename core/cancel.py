"""Racing work against the user's cancel signal, so a Stop button works even while a model call is stalled.

Here rather than in the agent package because providers' side calls race the same signal, and providers may
not import the agent loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")


async def unless_cancelled(work: Awaitable[T], cancel: asyncio.Event) -> T | None:
    """Await `work` unless the cancel event fires first (then cancel it and return None)."""
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        if not task.done():
            await cancel_and_wait(task)
    return task.result() if not task.cancelled() else None


async def cancel_and_wait(task: asyncio.Future[Any]) -> None:
    """Cancel `task` if it is still running and wait until it has finished."""
    if not task.done():
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
