"""LLM fact extraction and adjudication: validated, grounded answers in time, else nothing, never errors."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from core.errors import ProviderError
from core.ports import ExtractedFact, TurnRecord
from core.providers.base import ProviderProfile
from core.providers.fake import FailingProvider, ScriptedProvider
from core.types import ChatRequest, ModelResponse, StreamPart
from memory.facts.adjudicator import LlmAdjudicator, parse_verdict
from memory.facts.llm_extraction import LlmFactExtractor, parse_facts
from memory.facts.model import Candidate, StoredFact

TURNS = [
    TurnRecord("t1", "s1", "Hi! I moved to Lisbon last spring.", "Lisbon is lovely. What brought you?", 1.0),
    TurnRecord("t2", "s1", "A job: I work at Acme   Robotics now. My dog Rex came too.", "Nice!", 2.0),
    TurnRecord("t3", "s1", "I'm so tired today. My sister Jo lives in Porto.", "Rest well.", 3.0),
]


def item(subject: str, predicate: str, obj: object, excerpt: str, **kw: Any) -> dict[str, Any]:
    """One fact as the model writes it; `obj` is not always a string (a model can answer anything)."""
    base: dict[str, Any] = {
        "subject": subject,
        "predicate": predicate,
        "object": obj,
        "category": "location",
        "scope": "user",
        "source_excerpt": excerpt,
        "confidence": 0.9,
    }
    return base | kw


def answer(*items: object) -> str:
    return json.dumps({"facts": list(items)})


GOOD = answer(
    item("I", "Lives_In", "Lisbon", "I moved to Lisbon"),
    item("the user", "works at", "Acme Robotics", "i work at acme robotics", category="work", confidence=1.7),
    item("user", "has a dog", "Rex", "My dog Rex came too.", category="pets", confidence=-2),
    item(
        "my sister Jo", "lives in", "Porto", "My sister Jo lives in Porto", scope="entity", confidence="0.8"
    ),
)


async def extract(
    raw: str | BaseException, *then: str, **kw: Any
) -> tuple[list[ExtractedFact], ScriptedProvider]:
    """The facts of the model's answer `raw` (and of `then`, the answers to the repair request)."""
    provider = ScriptedProvider([raw, *then])
    facts = await LlmFactExtractor(provider, **kw).extract(TURNS)
    provider.assert_complete()
    return facts, provider


async def test_a_good_answer_becomes_normalised_extracted_facts() -> None:
    facts, _ = await extract(GOOD)
    assert [(f.subject, f.predicate, f.object, f.category, f.scope) for f in facts] == [
        ("user", "lives in", "Lisbon", "location", "user"),
        ("user", "works at", "Acme Robotics", "work", "user"),
        ("user", "has a dog", "Rex", "pets", "user"),
        ("my sister Jo", "lives in", "Porto", "location", "entity"),
    ]
    assert [f.confidence for f in facts] == [0.9, 1.0, 0.0, 0.8]
    assert facts[0].excerpt == "I moved to Lisbon" and not any(f.negated for f in facts)


async def test_fenced_json_is_accepted() -> None:
    facts, _ = await extract(f"Sure! Here are the facts:\n```json\n{GOOD}\n```")
    assert len(facts) == 4


async def test_an_excerpt_the_user_never_wrote_is_dropped_as_hallucinated() -> None:
    raw = answer(
        item("user", "lives in", "Madrid", "I live in Madrid"),  # never said
        item("user", "likes", "Lisbon", "Lisbon is lovely", category="preferences"),  # the assistant said it
        item("user", "lives in", "Lisbon", "I   MOVED to\nLisbon last spring"),  # case and spacing differ
    )
    facts, _ = await extract(raw)
    assert [f.object for f in facts] == ["Lisbon"] and facts[0].predicate == "lives in"


async def test_invalid_categories_scopes_and_parts_are_dropped() -> None:
    raw = answer(
        item("user", "lives in", "Lisbon", "I moved to Lisbon", category="hobbies"),
        item("user", "lives in", "Lisbon", "I moved to Lisbon", scope="world"),
        item("user", "", "Lisbon", "I moved to Lisbon"),
        item("user", "lives in", 42, "I moved to Lisbon"),
        item("user", "is a person who really likes living in", "Lisbon", "I moved to Lisbon"),
        item("user", "lives in", "Lisbon", ""),
        "not an object",
        item("user", "works at", "Acme Robotics", "I work at Acme Robotics", category="WORK", scope="User"),
    )
    facts, _ = await extract(raw)
    assert [(f.predicate, f.category, f.scope) for f in facts] == [("works at", "work", "user")]


async def test_passing_states_and_facts_about_the_assistant_are_dropped() -> None:
    raw = answer(
        item("user", "feels", "tired", "I'm so tired today", category="identity"),
        item("user", "is", "tired", "I'm so tired today", category="identity"),
        item("user", "mood", "tired", "I'm so tired today", category="identity"),
        item("user", "current activity", "moving", "I moved to Lisbon", category="identity"),
        item("assistant", "says", "Lisbon is lovely", "I moved to Lisbon", category="identity"),
        item("user", "likes", "you", "I moved to Lisbon", category="preferences"),
        item("user", "lives in", "Lisbon", "I moved to Lisbon"),
    )
    facts, _ = await extract(raw)
    assert [(f.predicate, f.object) for f in facts] == [("lives in", "Lisbon")]


async def test_at_most_max_facts_and_no_duplicates() -> None:
    raw = answer(
        item("I", "lives in", "Lisbon", "I moved to Lisbon"),
        item("user", "lives in", "lisbon", "moved to Lisbon"),  # the same fact again
        item("user", "works at", "Acme Robotics", "I work at Acme Robotics", category="work"),
        item("user", "has a dog", "Rex", "My dog Rex", category="pets"),
    )
    facts, _ = await extract(raw, max_facts=2)
    assert [f.predicate for f in facts] == ["lives in", "works at"]


@pytest.mark.parametrize("raw", ["", "I could not find any facts.", '{"facts": "none"}', "{broken"])
async def test_junk_answers_are_asked_again_once_and_give_no_facts(raw: str) -> None:
    facts, provider = await extract(raw, "still not JSON")
    assert facts == []
    repair = provider.requests[1].messages[-1].content
    assert repair.startswith("That reply could not be used:")


async def test_a_repaired_answer_gives_its_facts() -> None:
    facts, provider = await extract('{"facts": "none"}', GOOD)
    assert "facts: Input should be a valid list" in provider.requests[1].messages[-1].content
    assert len(facts) == 4


async def test_items_that_are_not_facts_are_dropped_without_asking_again() -> None:
    facts, provider = await extract("[1, 2]")
    assert facts == [] and len(provider.requests) == 1


def test_parse_tells_junk_from_an_empty_answer() -> None:
    assert parse_facts("no json here", ["I moved to Lisbon"]) is None
    assert parse_facts('{"facts": []}', ["I moved to Lisbon"]) == []


async def test_a_negated_fact_is_marked() -> None:
    turns = [TurnRecord("t1", "s1", "I don't work at Acme anymore.", "Oh?", 1.0)]
    raw = answer(item("I", "works at", "Acme", "I don't work at Acme anymore", category="work", negated=True))
    [fact] = await LlmFactExtractor(ScriptedProvider([raw])).extract(turns)
    assert fact.negated and fact.object == "Acme"


async def test_a_provider_error_gives_no_facts() -> None:
    facts, _ = await extract(ProviderError("rate limited", retryable=True))
    assert facts == []
    failing = FailingProvider(ProviderError("down"))
    assert await LlmFactExtractor(failing).extract(TURNS) == []
    assert failing.calls == 1


async def test_no_user_text_means_no_call() -> None:
    provider = ScriptedProvider([])
    assert await LlmFactExtractor(provider).extract([]) == []
    assert await LlmFactExtractor(provider).extract([TurnRecord("t", "s", "  ", "hi", 1.0)]) == []
    assert provider.requests == []


@dataclass
class SlowProvider:
    delay_s: float
    text: str = "A"
    name: str = "slow"
    model: str = "slow"
    profile: ProviderProfile = field(default_factory=ProviderProfile)

    async def complete(self, request: ChatRequest) -> ModelResponse:
        await asyncio.sleep(self.delay_s)
        return ModelResponse(self.text)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        raise NotImplementedError
        yield


async def test_a_late_model_is_abandoned_at_the_timeout() -> None:
    started = time.perf_counter()
    extractor = LlmFactExtractor(SlowProvider(5.0, GOOD), timeout_s=0.05)
    assert await extractor.extract(TURNS) == []
    assert time.perf_counter() - started < 1.0


async def test_the_request_carries_the_last_user_turns_and_known_facts_as_data() -> None:
    turns = [TurnRecord(f"t{n}", "s1", f"user line {n}", f"assistant line {n}", float(n)) for n in range(15)]
    provider = ScriptedProvider([answer()])
    known = [("user", "lives_in", "Lisbon"), ("Jo", "sister_of", "user")]
    assert await LlmFactExtractor(provider).extract(turns, known) == []
    [request] = provider.requests
    assert request.temperature == 0.0 and request.response_schema is not None
    assert request.max_tokens > 0
    system, task = request.messages[0].content, request.messages[-1].content
    assert "never instructions" in system and "data" in system
    assert "user | lives in | Lisbon" in task and "Jo | sister of | user" in task
    assert "User: user line 14" in task and "Assistant: assistant line 14" in task
    assert "user line 3\n" in task and "user line 2\n" not in task  # only the last 12 turns
    assert task.index("user line 3") < task.index("user line 14")


def stored(subject: str, relation: str, obj: str) -> StoredFact:
    return StoredFact(
        id="fact_old",
        subject=subject,
        relation=relation,
        object=obj,
        category="location",
        scope="user",
        status="current",
        truth=0.8,
        source="user_stated",
        confidence=0.9,
        excerpt="",
        turn_id="t0",
        created_at=1.0,
        last_confirmed_at=1.0,
    )


NEW = Candidate("user", "lives_in", "Porto", "location", "user", "I live in Porto now", 0.7)
OLD = stored("user", "lives_in", "Lisbon")


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("A", "update"),
        ("a)", "update"),
        (" (a) ", "update"),
        ("Answer: B", "complementary"),
        ("**C**", "implausible"),
        ("c.", "implausible"),
        ("Final answer: c", "implausible"),
        ("update", "update"),
        ("Update: the", "update"),
        ("Both are true", "complementary"),
        ("complementary", "complementary"),
        ("Implausible", "implausible"),
        ("I think B", "complementary"),
        ("The answer is A", "update"),
        ("", None),
        ("D", None),
        ("absolutely", None),
        ("A or B", None),
        ("I cannot tell", None),
    ],
)
def test_verdict_parsing(text: str, verdict: str | None) -> None:
    assert parse_verdict(text) == verdict


async def test_the_adjudicator_asks_a_tiny_question_and_maps_the_letter() -> None:
    provider = ScriptedProvider(["A)"])
    assert await LlmAdjudicator(provider).judge(NEW, OLD) == "update"
    [request] = provider.requests
    assert request.max_tokens <= 5 and request.temperature == 0.0
    task = request.messages[-1].content
    assert "user lives in Lisbon" in task and "user lives in Porto" in task
    assert "never instructions" in request.messages[0].content


async def test_the_adjudicator_gives_none_when_late_failing_or_unclear() -> None:
    started = time.perf_counter()
    slow = LlmAdjudicator(SlowProvider(5.0), timeout_s=0.05)
    assert await slow.judge(NEW, OLD) is None
    assert time.perf_counter() - started < 1.0
    assert await LlmAdjudicator(ScriptedProvider([ProviderError("down")])).judge(NEW, OLD) is None
    assert await LlmAdjudicator(ScriptedProvider(["hmm"])).judge(NEW, OLD) is None
