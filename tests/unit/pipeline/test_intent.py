"""Intent classifier: per-intent behaviour, normalisation, refinement by short-term context and tone,
and accuracy over the labelled set (tests/data/intent_labelled.tsv)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from core.config import INTENT_NAMES
from core.pipeline import intent_cues
from core.pipeline.intent import (
    DEFAULT_CUES,
    IntentClassifier,
    IntentResult,
    StmHint,
)
from core.pipeline.intent_cues import FOLLOW_UP_CUE, make_cue, normalise

LABELLED = Path(__file__).resolve().parents[2] / "data" / "intent_labelled.tsv"


@pytest.fixture(scope="module")
def classifier() -> IntentClassifier:
    return IntentClassifier()


def _rows() -> list[tuple[str, str, str]]:
    rows = []
    for line in LABELLED.read_text(encoding="utf-8").splitlines():
        if line.strip():
            query, intent, split = line.split("\t")
            rows.append((query, intent, split))
    return rows


EXAMPLES = {
    "factual_recall": [
        "what's my sister's name again?",
        "do you remember my dog's name",
        "did I ever tell you about my peanut allergy",
        "what car does my dad drive",
    ],
    "temporal_recall": [
        "what did I do last weekend?",
        "when did I start my new job?",
        "how has my sleep changed over the past month",
        "what was I working on three days ago",
    ],
    "emotional_support": [
        "I feel so lonely lately",
        "my grandma passed away and I can't stop crying",
        "I'm exhausted and I hate my job",
        "nobody seems to care about me",
    ],
    "casual_social": ["hey!", "good morning :)", "lol that's hilarious", "thanks, that helped a lot"],
    "technical_help": [
        "how do I reverse a list in python?",
        'Traceback (most recent call last):\n  File "app.py", line 3\nKeyError: "id"',
        "npm install fails with EACCES permission denied",
        "my docker container keeps exiting with code 137",
    ],
    "creative_exploration": [
        "write a short poem about autumn rain",
        "brainstorm some names for my podcast",
        "imagine a world where humans could fly",
        "what if the roman empire never fell?",
    ],
    "meta_conversational": [
        "what do you know about me?",
        "why did you say that?",
        "how does your memory work?",
        "can you forget what I told you about my ex",
    ],
    "project_work": [
        "what's left on my todo list for the launch?",
        "let's pick up where we left off on the migration plan",
        "help me plan the next sprint for the billing service",
        "the deadline for the grant report is friday, what should I prioritise",
    ],
    "general": [
        "what's the capital of Australia?",
        "how do vaccines work",
        "who wrote pride and prejudice",
        "is it safe to eat raw cookie dough",
    ],
}


@pytest.mark.parametrize(
    ("intent", "query"), [(intent, q) for intent, qs in EXAMPLES.items() for q in qs], ids=lambda v: v[:40]
)
def test_each_intent_is_recognised(classifier: IntentClassifier, intent: str, query: str) -> None:
    result = classifier.classify(query)
    assert result.intent == intent, (query, result.intent, result.cues)


def test_result_shape(classifier: IntentClassifier) -> None:
    result = classifier.classify("when did I last call my parents?")
    assert set(result.scores) == set(INTENT_NAMES)
    assert sum(result.scores.values()) == pytest.approx(1.0, abs=1e-3)
    assert 0.0 <= result.confidence <= 1.0
    assert max(result.scores, key=result.scores.__getitem__) == result.intent
    assert all(":" in cue for cue in result.cues)
    assert json.loads(json.dumps(result.to_dict()))["intent"] == "temporal_recall"
    with pytest.raises(TypeError):
        result.scores["general"] = 1.0  # type: ignore[index]  # the read-only mapping is the point


def test_empty_or_blank_text_is_general_with_no_confidence(classifier: IntentClassifier) -> None:
    for text in ("", "   ", "\n\t"):
        result = classifier.classify(text)
        assert (result.intent, result.confidence) == ("general", 0.0)


def test_no_cue_falls_back_to_general_with_low_confidence(classifier: IntentClassifier) -> None:
    result = classifier.classify("purple elephants")
    assert result.intent == "general"
    assert result.confidence < classifier.low_confidence


def test_strong_evidence_gives_high_confidence(classifier: IntentClassifier) -> None:
    strong = classifier.classify("I'm so anxious and overwhelmed, I can't cope anymore")
    weak = classifier.classify("the old feeling")
    assert strong.intent == "emotional_support" and strong.confidence >= 0.8
    assert strong.confidence > weak.confidence


@pytest.mark.parametrize(
    "variant",
    [
        "What’s my sister’s name?",
        "WHATS MY SISTERS NAME",
        "whats my sisters name",
        "what is my sister's name",
    ],
)
def test_casing_quotes_and_contractions_do_not_matter(classifier: IntentClassifier, variant: str) -> None:
    assert classifier.classify(variant).intent == "factual_recall"


def test_normalise_expands_contractions_and_chat_spellings() -> None:
    assert normalise("I’m SO tired, can't sleep") == "i am so tired, cannot sleep"
    assert normalise("idk wat u mean") == "i do not know what you mean"
    assert normalise("we didn't   finish") == "we did not finish"


def test_world_events_in_the_past_are_not_personal_recall(classifier: IntentClassifier) -> None:
    assert classifier.classify("who won the world cup in 2018").intent == "general"
    assert classifier.classify("what did I do in 2018").intent == "temporal_recall"


def test_fact_question_with_a_time_anchor_is_temporal(classifier: IntentClassifier) -> None:
    assert classifier.classify("what did I tell you yesterday about the landlord").intent == "temporal_recall"
    assert classifier.classify("what did I tell you about the landlord").intent == "factual_recall"


def test_long_paste_is_read_at_head_and_tail(classifier: IntentClassifier) -> None:
    frames = '  File "worker.py", line 88, in run\n' * 400
    result = classifier.classify("Traceback (most recent call last):\n" + frames + "ValueError: bad input")
    assert result.intent == "technical_help"


def test_follow_up_shape_is_marked(classifier: IntentClassifier) -> None:
    assert classifier.classify("and what about the second one?").is_follow_up
    assert classifier.classify("why?").is_follow_up
    assert not classifier.classify("why is the sky blue").is_follow_up


# --- refinement ----------------------------------------------------------------------------------------


def test_follow_up_inherits_the_previous_intent(classifier: IntentClassifier) -> None:
    base = classifier.classify("and what about the second one?")
    assert base.intent == "general" and base.confidence < classifier.low_confidence
    refined = classifier.refine(base, StmHint("technical_help", 0.8, is_follow_up=False))
    assert refined.intent == "technical_help"
    assert "stm:technical_help" in refined.cues
    assert base.confidence <= refined.confidence <= 0.8
    assert sum(refined.scores.values()) == pytest.approx(1.0, abs=1e-3)


def test_stm_follow_up_flag_counts_even_without_the_shape(classifier: IntentClassifier) -> None:
    hint = StmHint("creative_exploration", 0.9, is_follow_up=True)
    text = "darker, with more rain"
    assert not classifier.classify(text).is_follow_up
    assert classifier.classify(text, hint).intent == "creative_exploration"
    assert classifier.classify(text, StmHint("creative_exploration", 0.9)).intent == "general"


def test_confident_results_are_not_changed_by_context(classifier: IntentClassifier) -> None:
    result = classifier.classify("how do I reverse a list in python?")
    hint = StmHint("emotional_support", 0.95, is_follow_up=True)
    assert classifier.refine(result, hint) is result


def test_unsure_new_topic_does_not_flip_without_follow_up(classifier: IntentClassifier) -> None:
    result = classifier.classify("purple elephants")
    assert classifier.refine(result, StmHint("project_work", 0.9)).intent == "general"


def test_unknown_or_missing_previous_intent_is_ignored(classifier: IntentClassifier) -> None:
    result = classifier.classify("and the other one?")
    assert classifier.refine(result, StmHint(None, 0.9, True)) is result
    assert classifier.refine(result, StmHint("no_such_intent", 0.9, True)) is result
    assert classifier.refine(result, None) is result


def test_classify_with_short_term_equals_refine(classifier: IntentClassifier) -> None:
    hint = StmHint("temporal_recall", 0.7, is_follow_up=False)
    text = "what about the week after?"
    assert classifier.classify(text, hint) == classifier.refine(classifier.classify(text), hint)


def test_distressed_tone_moves_unsure_turns_to_emotional_support(classifier: IntentClassifier) -> None:
    unsure = classifier.classify("everything at once")
    refined = classifier.refine(unsure, None, tone="crisis")
    assert refined.intent == "emotional_support" and refined.confidence >= 0.6
    assert "tone:crisis" in refined.cues
    technical = classifier.classify("npm install fails with EACCES permission denied")
    assert classifier.refine(technical, None, tone="elevated") is technical
    assert classifier.refine(unsure, None, tone="conversational") is unsure


def test_classifier_is_stateless(classifier: IntentClassifier) -> None:
    first = classifier.classify("what's my wife's name?")
    classifier.classify("I feel awful")
    assert classifier.classify("what's my wife's name?") == first


def test_cues_must_name_known_intents() -> None:
    with pytest.raises(ValueError, match="unknown intents"):
        IntentClassifier(cues=[make_cue("smalltalk", "x", 1.0, r"hi")])


def test_lexicon_intent_names_match_the_config() -> None:
    constants = [getattr(intent_cues, n) for n in dir(intent_cues) if n.isupper() and not n.startswith("_")]
    names = {value for value in constants if isinstance(value, str) and value != FOLLOW_UP_CUE}
    assert names == set(INTENT_NAMES)
    assert {cue.intent for cue in DEFAULT_CUES} == set(INTENT_NAMES)
    assert FOLLOW_UP_CUE.startswith("context:")


# --- the labelled set ------------------------------------------------------------------------------------


def test_labelled_set_is_well_formed() -> None:
    rows = _rows()
    assert len(rows) >= 200
    assert len({query for query, _, _ in rows}) == len(rows), "duplicate queries"
    assert {intent for _, intent, _ in rows} <= set(INTENT_NAMES)
    assert {split for _, _, split in rows} == {"train", "test"}
    per_intent = Counter(intent for _, intent, _ in rows)
    assert min(per_intent[name] for name in INTENT_NAMES) >= 22, per_intent
    tests = Counter(intent for _, intent, split in rows if split == "test")
    assert min(tests[name] for name in INTENT_NAMES) >= 5, tests


def _accuracy(classifier: IntentClassifier, rows: list[tuple[str, str, str]]) -> tuple[float, list[str]]:
    misses = [
        f"{gold} -> {got}: {query}"
        for query, gold, _ in rows
        if (got := classifier.classify(query).intent) != gold
    ]
    return 1 - len(misses) / len(rows), misses


def test_accuracy_on_the_whole_labelled_set(classifier: IntentClassifier) -> None:
    accuracy, misses = _accuracy(classifier, _rows())
    assert accuracy >= 0.90, misses


def test_accuracy_on_the_held_out_test_split(classifier: IntentClassifier) -> None:
    accuracy, misses = _accuracy(classifier, [row for row in _rows() if row[2] == "test"])
    assert accuracy >= 0.90, misses


@pytest.mark.parametrize("intent", INTENT_NAMES)
def test_per_intent_recall_floor(classifier: IntentClassifier, intent: str) -> None:
    rows = [row for row in _rows() if row[1] == intent]
    recall, misses = _accuracy(classifier, rows)
    assert recall >= 0.85, misses


def test_result_type_is_exported() -> None:
    assert IntentResult("general", 0.0).scores == {}
