"""Splitting a web search request into sub-queries: real spaCy parses, and the parser-free fallback."""

from __future__ import annotations

import pytest

from core.nlp import SpacyPipeline
from core.tools.web.decompose import QueryDecomposer


@pytest.fixture(scope="module")
def nlp() -> SpacyPipeline:
    return SpacyPipeline()


@pytest.mark.parametrize(
    ("query", "parts"),
    [
        (
            "Compare the population of Paris and Berlin",
            ("the population of Paris", "the population of Berlin"),
        ),
        (
            "What's the difference between Python and Rust for web backends?",
            ("Python for web backends?", "Rust for web backends?"),
        ),
        ("Which is better, the iPhone 15 or the Pixel 8?", ("the iPhone 15?", "the Pixel 8?")),
        (
            "What is the weather in Paris, London and Tokyo today?",
            (
                "What is the weather in Paris today?",
                "What is the weather in London today?",
                "What is the weather in Tokyo today?",
            ),
        ),
        (
            "Who won the 2024 Euro and also what is the latest Python release?",
            ("Who won the 2024 Euro", "what is the latest Python release?"),
        ),
        (
            "What's the latest news on SpaceX? Also, what's the Bitcoin price?",
            ("What's the latest news on SpaceX?", "what's the Bitcoin price?"),
        ),
        ("Compare Rust vs Go performance", ("Rust performance", "Go performance")),
    ],
)
async def test_a_request_with_several_parts_is_split(
    nlp: SpacyPipeline, query: str, parts: tuple[str, ...]
) -> None:
    assert await QueryDecomposer(4, nlp=nlp).split(query) == parts


@pytest.mark.parametrize(
    "query",
    [
        "What is the capital of Australia?",
        "Who created Tom and Jerry?",  # two names, no comparison: one subject
        "latest news about the salt and pepper shortage",
        "Download and install Python 3.13",  # one action on one object
        "I'm going to Paris next week. What's the weather there?",  # the statement is the question's context
    ],
)
async def test_a_simple_request_stays_one_query(nlp: SpacyPipeline, query: str) -> None:
    assert await QueryDecomposer(4, nlp=nlp).split(query) == (query,)


async def test_the_split_stops_at_the_limit(nlp: SpacyPipeline) -> None:
    parts = await QueryDecomposer(3, nlp=nlp).split(
        "best pizza in New York, Chicago, Boston, Rome and Naples"
    )

    assert parts == ("best pizza in New York", "best pizza in Chicago", "best pizza in Boston")


async def test_a_limit_of_one_never_splits(nlp: SpacyPipeline) -> None:
    query = "Compare the population of Paris and Berlin"

    assert await QueryDecomposer(1, nlp=nlp).split(query) == (query,)


async def test_without_a_parser_several_questions_and_and_also_still_split() -> None:
    decomposer = QueryDecomposer(4)

    assert await decomposer.split("Who won the Euro? When is the next one?") == (
        "Who won the Euro?",
        "When is the next one?",
    )
    assert await decomposer.split("latest Rust release and also the latest Go release") == (
        "latest Rust release",
        "the latest Go release",
    )
    assert await decomposer.split("Compare Paris and Berlin") == ("Compare Paris and Berlin",)


async def test_a_parser_failure_keeps_the_query_whole() -> None:
    def broken(text: str) -> object:
        raise OSError("model missing")

    assert await QueryDecomposer(4, nlp=broken).split("Compare Paris and Berlin") == (
        "Compare Paris and Berlin",
    )
