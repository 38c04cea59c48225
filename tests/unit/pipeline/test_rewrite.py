"""The LLM refinement step: a standalone retrieval query when the model answers in time, nothing otherwise."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from core.errors import ProviderError
from core.pipeline.rewrite import LlmRefiner, parse_refinement
from core.ports import TurnRecord
from core.providers.base import ProviderProfile
from core.providers.fake import FailingProvider, ScriptedProvider
from core.types import ChatRequest, ModelResponse, StreamPart

RECENT = [TurnRecord("t1", "s", "My sister Jo is moving to Lisbon.", "Exciting! When?", 1.0)]
GOOD = {
    "query": "when is Jo moving to Lisbon",
    "topics": ["Jo", "move to Lisbon"],
    "relation": "continuing",
    "open_questions": [],
}


async def test_a_timely_json_answer_becomes_the_refinement() -> None:
    provider = ScriptedProvider([json.dumps(GOOD)])
    refined = await LlmRefiner(provider).refine("when is she going?", RECENT)
    assert refined is not None
    assert refined.query == "when is Jo moving to Lisbon"
    assert refined.topics == ("Jo", "move to Lisbon") and refined.relation == "continuing"
    [request] = provider.requests
    assert request.temperature == 0.0 and request.response_schema is not None
    task = request.messages[-1].content
    assert "User: My sister Jo is moving to Lisbon." in task and task.endswith("Message: when is she going?")


async def test_fenced_json_with_junk_fields_is_cleaned() -> None:
    raw = (
        '```json\n{"query": "  jo   lisbon ", "topics": ["a", "a", 3, ""], "relation": "bogus",'
        ' "open_questions": "not a list"}\n```'
    )
    refined = parse_refinement(raw)
    assert refined is not None
    assert (refined.query, refined.topics, refined.relation, refined.open_questions) == (
        "jo lisbon",
        ("a",),
        "new",
        (),
    )


def test_answers_that_are_not_a_usable_object_are_refused() -> None:
    for raw in ["", "sure! here you go", "[1, 2]", '{"query": ""}', '{"query": 5}', "{broken"]:
        assert parse_refinement(raw) is None, raw


@dataclass
class SlowProvider:
    delay_s: float
    name: str = "slow"
    model: str = "slow"
    profile: ProviderProfile = field(default_factory=ProviderProfile)

    async def complete(self, request: ChatRequest) -> ModelResponse:
        await asyncio.sleep(self.delay_s)
        return ModelResponse(json.dumps(GOOD))

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        raise NotImplementedError
        yield


async def test_a_late_model_is_abandoned_at_the_timeout() -> None:
    started = time.perf_counter()
    refined = await LlmRefiner(SlowProvider(5.0), timeout_s=0.05).refine("when is she going?", RECENT)
    assert refined is None
    assert time.perf_counter() - started < 1.0


async def test_a_failing_model_changes_nothing() -> None:
    provider = FailingProvider(ProviderError("rate limited", retryable=True))
    assert await LlmRefiner(provider).refine("hello", []) is None
    assert provider.calls == 1
