"""Shared knowledge-graph fixtures: a small personal graph built through the public ingest path."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from knowledge.graph import KnowledgeGraph
from knowledge.graph_facts import ingest_triples

T0 = 1_700_000_000.0  # a fixed "now" so validity times are predictable


@pytest.fixture
def clock() -> Callable[[], float]:
    return lambda: T0


@pytest.fixture
def personal_graph(clock: Callable[[], float]) -> KnowledgeGraph:
    """The user, their sister Jo, their dog Pepper, Aunt May in New York, and a few places and likes."""
    graph = KnowledgeGraph(clock)
    ingest_triples(
        graph,
        [
            ("my sister", "is named", "Jo", 0.9, "f1", T0 - 500),
            ("Jo", "lives in", "Boston", 0.9, "f2", T0 - 400),
            ("user", "has a dog named", "Pepper", 0.9, "f3", T0 - 300),
            ("I", "live in", "Portland", 0.9, "f4", T0 - 300),
            ("Aunt May", "aunt of", "user", 0.9, "f5", T0 - 200),
            ("Aunt May", "lives in", "New York", 0.9, "f6", T0 - 200),
            ("Jo", "birthday", "March 3", 0.9, "f7", T0 - 100),
            ("Jo", "likes", "tulips", 0.8, "f8", T0 - 100),
        ],
    )
    return graph
