"""The seed-query corpus: at least 27 queries, three or more per intent, every expectation naming something
real; each expectation fails the reply or reading that breaks it, and only that."""

from __future__ import annotations

from collections import Counter

from core.pipeline.analyzer import Analysis
from core.prompt.sections import INTENT_SECTIONS, SECTIONS
from eval.corpus import Query, failures, load_corpus, report

TONES = {"conversational", "concern", "elevated", "crisis"}


def test_the_corpus_covers_every_intent_three_times_with_real_names() -> None:
    seed, queries = load_corpus()
    assert seed and len(queries) >= 27
    per_intent = Counter(q.intent for q in queries)
    assert set(per_intent) == set(INTENT_SECTIONS) and min(per_intent.values()) >= 3
    for query in queries:
        assert query.tone in TONES and query.max_words > 0
        assert all(key in SECTIONS for key in query.sections), query.text


def analysis(intent: str = "factual_recall", tone: str = "conversational") -> Analysis:
    return Analysis(intent, 0.9, tone, 0.0, (), (), "q")


QUERY = Query("Where do I work?", "factual_recall", "conversational", ("relevant_memories",), ("###",), 14)


def test_a_reply_that_meets_every_expectation_fails_none() -> None:
    reply = "You told me on 6 Dec: you work at the Kelsey Street clinic."
    prompt = "USER PROFILE ... Kelsey Street clinic"
    assert failures(QUERY, analysis(), ["relevant_memories", "current_query"], reply, prompt, set()) == []


def test_each_broken_expectation_is_named() -> None:
    reply = "Sure! ### USER PROFILE you work at a place and a place and a place and more words here"
    failed = failures(QUERY, analysis("general", "concern"), ["current_query"], reply, "", set())
    assert "intent (general)" in failed and "tone (concern)" in failed
    assert "section relevant_memories missing" in failed and "said '###'" in failed
    assert "longer than 14 words" in failed


def test_the_report_counts_per_intent_and_per_kind() -> None:
    rows = [
        {"query": "a", "intent": "general", "reply": "", "ms": 1.0, "failed": []},
        {
            "query": "b",
            "intent": "general",
            "reply": "",
            "ms": 1.0,
            "failed": ["tone (concern)", "said '###'"],
        },
    ]
    result = report(rows)
    assert result["passed"] == 1 and result["intents"]["general"] == {"n": 2, "passed": 1}
    assert result["failed_by_kind"] == {"tone": 1, "said": 1}
