"""Shared fixtures of the memory tests: one spaCy pipeline and one grammar fact reader per test process
(loading spaCy costs about a second; the pipeline keeps no state between parses)."""

from __future__ import annotations

import pytest

from core.nlp import SpacyPipeline
from memory.facts.grammar import GrammarFactExtractor


@pytest.fixture(scope="session")
def nlp() -> SpacyPipeline:
    return SpacyPipeline()


@pytest.fixture(scope="session")
def reader(nlp: SpacyPipeline) -> GrammarFactExtractor:
    """The grammar fact reader (frames and rules) the app uses."""
    return GrammarFactExtractor(nlp)
