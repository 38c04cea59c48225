"""One path for side calls that expect JSON: validated against a pydantic model, repaired once, else None."""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import BaseModel

from core.providers.fake import ScriptedProvider
from core.providers.structured import ask_structured, read_structured, response_schema
from core.types import ChatRequest, Message, ModelResponse

ASK = (Message("system", "Answer with JSON."), Message("user", "Is it raining?"))


class Verdict(BaseModel):
    answer: Literal["yes", "no"]
    confidence: float = 0.5


async def _ask(provider: ScriptedProvider, timeout_s: float = 5.0) -> Verdict | None:
    return await ask_structured(
        provider, ASK, Verdict, max_tokens=50, timeout_s=timeout_s, what="test verdict", otherwise="guessing"
    )


async def test_a_fenced_reply_in_prose_is_read_and_validated() -> None:
    provider = ScriptedProvider(['Sure! ```json\n{"answer": "yes", "confidence": 0.9}\n``` Hope it helps.'])
    assert await _ask(provider) == Verdict(answer="yes", confidence=0.9)
    assert provider.requests[0].response_schema == response_schema(Verdict)


async def test_a_reply_that_does_not_fit_is_repaired_once_with_what_was_wrong() -> None:
    provider = ScriptedProvider(['{"answer": "maybe"}', '{"answer": "no"}'])
    assert await _ask(provider) == Verdict(answer="no")
    repair = provider.requests[1].messages
    assert repair[-2] == Message("assistant", '{"answer": "maybe"}')
    assert "answer: Input should be 'yes' or 'no'" in repair[-1].content


async def test_two_unusable_replies_give_none() -> None:
    provider = ScriptedProvider(["no idea", "still no idea"])
    assert await _ask(provider) is None and provider.remaining == 0


async def test_a_late_reply_is_not_asked_again() -> None:
    async def slow(request: ChatRequest) -> ModelResponse:
        await asyncio.sleep(5)
        return ModelResponse('{"answer": "yes"}')

    class Slow(ScriptedProvider):
        async def complete(self, request: ChatRequest) -> ModelResponse:
            self.requests.append(request)
            return await slow(request)

    provider = Slow([])
    assert await _ask(provider, timeout_s=0.1) is None and len(provider.requests) == 1


def test_the_schema_sent_is_closed_and_untitled() -> None:
    schema = response_schema(Verdict)
    assert schema["additionalProperties"] is False and "title" not in schema
    assert schema["properties"]["answer"] == {"enum": ["yes", "no"], "type": "string"}
    problem = read_structured("[]", Verdict)
    assert problem == (
        "it does not match the schema (the value: Input should be a valid dictionary or instance of Verdict)"
    )
