"""Side calls: JSON read out of a model's prose, and a bounded call that reports how it ended."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.providers.fake import ScriptedProvider
from core.providers.side_call import Reply, json_in, side_call
from core.types import ChatRequest, Message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('noise {"a": "}{", "b": [1, {"c": 2}]} tail', {"a": "}{", "b": [1, {"c": 2}]}),
        ('x {"q": "say \\"hi\\" }"} y', {"q": 'say "hi" }'}),
        ('```json\n{"tool": "calc", "arguments": {}}\n```', {"tool": "calc", "arguments": {}}),
        ('Fill in {name} like this: {"name": "Ada"}', {"name": "Ada"}),
        ('{"first": 1} and {"second": 2}', {"first": 1}),
        ("[1, 2] then", [1, 2]),
        ("no json here", None),
        ('{"open": ', None),
    ],
)
def test_json_in_reads_the_first_json_value_that_parses(text: str, expected: Any) -> None:
    assert json_in(text) == expected


REQUEST = ChatRequest((Message("user", "hi"),))


class Stalled:
    """A provider that never answers (ends only when cancelled)."""

    name = model = "stalled"

    async def complete(self, request: ChatRequest) -> Any:
        await asyncio.Event().wait()


async def call(provider: Any, **kw: Any) -> Reply:
    return await side_call(provider, REQUEST, what="test", otherwise="going on", **kw)


async def test_side_call_reports_ok_with_the_response() -> None:
    reply = await call(ScriptedProvider(["fine "]), timeout_s=1.0)
    assert (reply.status, reply.text) == ("ok", "fine")


async def test_side_call_reports_a_failure_instead_of_raising() -> None:
    reply = await call(ScriptedProvider([RuntimeError("down")]), timeout_s=1.0)
    assert (reply.status, reply.response, reply.text) == ("failed", None, "")


async def test_side_call_gives_up_after_its_timeout() -> None:
    assert (await call(Stalled(), timeout_s=0.01)).status == "timeout"


async def test_side_call_stops_when_cancelled() -> None:
    cancel = asyncio.Event()
    asyncio.get_running_loop().call_later(0.01, cancel.set)
    # The timeout is a hang guard far beyond the cancel; the status says which one ended the call.
    reply = await call(Stalled(), timeout_s=30.0, cancel=cancel)
    assert (reply.status, reply.response) == ("cancelled", None)
