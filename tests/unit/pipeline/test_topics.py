"""Topics and entities from the real spaCy model, and the cap that keeps a pasted document cheap."""

from __future__ import annotations

import pytest

from core.pipeline.topics import Entity, TopicExtractor


@pytest.fixture(scope="module")
def extractor() -> TopicExtractor:
    return TopicExtractor(max_chars=200)


def test_noun_chunks_become_topics_and_names_become_entities(extractor: TopicExtractor) -> None:
    result = extractor.extract("My sister Jo moved to Lisbon for a new nursing job.")
    assert Entity("Lisbon", "GPE") in result.entities
    assert "new nursing job" in result.topics
    assert all(topic == topic.lower() for topic in result.topics)


def test_a_long_message_is_read_by_its_opening(extractor: TopicExtractor) -> None:
    text = "Jo flew to Lisbon yesterday. " + "filler words here " * 40 + "Then Ana went to Tokyo."
    entities = {entity.text for entity in extractor.extract(text).entities}
    assert "Lisbon" in entities and "Tokyo" not in entities


@pytest.mark.parametrize("text", [" " * 1000, "x" * 1000, ""])
def test_degenerate_long_texts_do_not_fail(extractor: TopicExtractor, text: str) -> None:
    result = extractor.extract(text)
    assert len(result.topics) <= 1 and all(len(topic) <= 200 for topic in result.topics)
