"""The context pipeline's understanding of one message: intent, tone, topics, entities.

Runs with no LLM: the intent cues and tone lexicon (each with a linear head over MiniLM when one is given)
and spaCy. `rewritten_query` is the message itself until an LLM rewriter is configured (the prompt always
shows the original).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.pipeline.intent import IntentClassifier, StmHint
from core.pipeline.short_term import relation_of
from core.pipeline.speech_act import STATEMENT
from core.pipeline.tone import ToneDetector, ToneResult
from core.pipeline.topics import TopicExtractor


@dataclass(frozen=True)
class Analysis:
    intent: str
    confidence: float
    tone: str
    tone_score: float
    topics: tuple[str, ...]
    entities: tuple[dict[str, str], ...]
    rewritten_query: str
    support: str | None = None
    relation: str = "new"  # to the conversation so far: correcting, recalling, continuing or new
    tone_detail: ToneResult | None = None  # the tone reading's evidence (`analyze --explain`)
    intent_cues: tuple[str, ...] = ()  # what fired for the intent (`analyze --explain`)
    speech_act: str = ""  # question, request, statement or fragment (core/pipeline/speech_act.py)

    @property
    def asks(self) -> bool:
        """The tone reading asks: its head heard risk that nothing in the words states."""
        return self.tone_detail is not None and self.tone_detail.unsure is not None

    def as_dict(self) -> dict[str, Any]:
        """The `analyze --json` object (keys fixed by the CLI contract, plus tone_score and support)."""
        return {
            "intent": self.intent,
            "confidence": round(self.confidence, 3),
            "tone": self.tone,
            "tone_score": round(self.tone_score, 3),
            "topics": list(self.topics),
            "entities": [dict(e) for e in self.entities],
            "rewritten_query": self.rewritten_query,
            "support": self.support,
            "relation": self.relation,
        }

    def explain(self) -> dict[str, Any]:
        """Why the tone and intent were chosen (`analyze --explain`)."""
        return {
            "tone": self.tone_detail.explain() if self.tone_detail else None,
            "intent": {
                "intent": self.intent,
                "confidence": round(self.confidence, 3),
                "cues": list(self.intent_cues),
            },
        }


class ContextAnalyzer:
    """Intent (refined by tone and short-term context), tone, topics and entities of a message."""

    def __init__(self, intent: IntentClassifier, tone: ToneDetector, topics: TopicExtractor) -> None:
        self._intent = intent
        self._tone = tone
        self._topics = topics

    def tone_of(self, text: str) -> str:
        """The tone level of one message (the session reflection's prevailing tone)."""
        return self._tone.detect(text).level.value

    def analyze(self, text: str, short_term: StmHint | None = None) -> Analysis:
        tone = self._tone.detect(text)
        intent = self._intent.refine(
            self._intent.classify(text, short_term), short_term, tone=tone.level.value
        )
        found = self._topics.extract(text)
        if found.speech_act == STATEMENT:
            intent = self._intent.as_told(intent)
        return Analysis(
            intent=intent.intent,
            confidence=intent.confidence,
            tone=tone.level.value,
            tone_score=tone.score,
            topics=found.topics,
            entities=tuple({"text": e.text, "label": e.label} for e in found.entities),
            rewritten_query=text,
            support=tone.support,
            relation=relation_of(text),
            tone_detail=tone,
            intent_cues=intent.cues,
            speech_act=found.speech_act,
        )
