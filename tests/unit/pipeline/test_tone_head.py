"""The shipped tone detector (lexicon, MiniLM head and the parse-based danger reader): the head's weights
match its examples and it never saw the held-out sets; a crisis needs evidence in the user's words, so the
crisis sets' rows with explicit evidence (`tests/data/tone_crisis_evidence.tsv`, labelled by readers who saw
no code) are read as crisis and the rest at least asked about, while real casual chat nobody here wrote
(`tests/data/tone_chat_heldout.tsv`: 1,308 LoCoMo turns the head never saw) is never read as crisis."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.pipeline.linear_head import (
    EVIDENCE_HEAD,
    TONE_HEAD,
    TONE_MULTILINGUAL_HEAD,
    read_head_digest,
    training_digest,
)
from core.pipeline.tone import ToneDetector, ToneLevel
from eval.benchmarks.tone_bench import ToneScore, read_cases, read_evidence, score
from eval.training_sets import training_examples

DATA = Path(__file__).resolve().parents[2] / "data"


def key(text: str) -> str:
    """The text without case or punctuation; letters of every script and emoji kept ("🔪🩸 again" and
    "🩸🩸🩸 again" are two messages, and so are two Korean sentences)."""
    return re.sub(r"(?:[^\w\u2600-\u27bf\U0001f000-\U0001faff]|_)+", " ", text.lower()).strip()


def test_the_shipped_weights_were_trained_on_the_shipped_examples() -> None:
    # Editing data/tone_examples.tsv or data/evidence_examples.tsv without retraining (python -m
    # eval.train_head tone|evidence) fails here.
    assert read_head_digest(TONE_HEAD) == training_digest(training_examples(TONE_HEAD))
    assert read_head_digest(EVIDENCE_HEAD) == training_digest(training_examples(EVIDENCE_HEAD))
    multilingual = training_examples(TONE_MULTILINGUAL_HEAD)
    assert read_head_digest(TONE_MULTILINGUAL_HEAD) == training_digest(multilingual)
    assert multilingual[: len(training_examples(TONE_HEAD))] == training_examples(TONE_HEAD)


OTHER_LANGUAGES_CHAT = "tone_chat_other_languages.txt"


def test_no_line_measuring_the_other_language_head_is_one_of_its_examples() -> None:
    """Ordinary chat in 27 languages was split by topic file: one half trains the head, the other measures
    it."""
    training = {case for case, _ in training_examples(TONE_MULTILINGUAL_HEAD)}
    measuring = [case.text for case in read_cases(DATA / OTHER_LANGUAGES_CHAT)]
    assert len(measuring) > 6000
    assert not training.intersection(measuring)


HELD_OUT = (
    "tone_blind.tsv",
    "tone_crisis_blind3.tsv",
    "tone_crisis_blind4.tsv",
    "tone_crisis_blind5.tsv",
    "tone_crisis_blind6.tsv",
    "tone_crisis_blind7.tsv",
    "tone_crisis_blind8.tsv",
    "tone_crisis_blind9.tsv",
    "tone_crisis_blind10.tsv",
    "tone_crisis_blind11.tsv",
    "tone_crisis_blind12.tsv",
    "tone_chat_heldout.tsv",
)


@pytest.mark.parametrize("name", HELD_OUT)
def test_no_held_out_message_is_a_training_example(name: str) -> None:
    training = {key(text) for text, _ in training_examples(TONE_HEAD)}
    assert len(training) >= 2500
    assert not training & {key(case.text) for case in read_cases(DATA / name)}


# The evidence head learns from the tone development sets (data/evidence_examples.tsv); these measure it.
@pytest.mark.parametrize("name", HELD_OUT[-5:])
def test_no_message_measuring_the_evidence_head_is_one_of_its_examples(name: str) -> None:
    training = {key(text) for text, _ in training_examples(EVIDENCE_HEAD)}
    assert len(training) >= 1700
    assert not training & {key(case.text) for case in read_cases(DATA / name)}


@pytest.fixture(scope="module")
def detector() -> ToneDetector:
    """The detector the analyzer holds, built by the composition root's builder."""
    from app.builders.models import build_tone_detector
    from core.nlp import SpacyPipeline
    from memory.embeddings import MiniLMEmbedder

    return build_tone_detector(MiniLMEmbedder(threads=1), SpacyPipeline())


def scored(detector: ToneDetector, name: str, read: dict[str, str], every: int = 1) -> ToneScore:
    """The set's readings (of every `every`-th row); `read` remembers each text's level across the tests of
    this module."""

    def level(text: str) -> str:
        if text not in read:
            read[text] = detector.detect(text).level.value
        return read[text]

    return score(read_cases(DATA / name)[::every], level)


@pytest.fixture(scope="module")
def read() -> dict[str, str]:
    return {}


EVIDENCE = read_evidence(DATA / "tone_crisis_evidence.tsv")
# (set, crisis rows, floors: crisis recall on rows with explicit evidence, crisis rows read as concern or
# above, crisis precision). Measured with `bench tone` when the multilingual head came in (docs/tone_eval.md,
# "A second encoder"): explicit 21/23 on the blind set, then 74/75, 81/81, 106/109, 100/114, 104/114,
# 108/124, 111/132, 103/128, 103/119, 104/140 and 123/138 on sets 3-13; concern or above 30, 82, 97, 117,
# 135, 131, 136, 139, 137, 139, 131 and 136. A floor two rows under each, to guard against losing what it
# has.
CRISIS_SETS = (
    ("tone_blind.tsv", 30, (19, 28, 0.75)),
    ("tone_crisis_blind3.tsv", 82, (72, 80, 0.9)),
    ("tone_crisis_blind4.tsv", 100, (79, 95, 0.95)),
    ("tone_crisis_blind5.tsv", 120, (104, 115, 0.95)),
    ("tone_crisis_blind6.tsv", 150, (98, 133, 0.95)),
    ("tone_crisis_blind7.tsv", 150, (102, 129, 0.9)),
    ("tone_crisis_blind8.tsv", 150, (106, 134, 0.9)),
    ("tone_crisis_blind9.tsv", 150, (109, 137, 0.9)),
    ("tone_crisis_blind10.tsv", 150, (101, 135, 0.9)),
    ("tone_crisis_blind11.tsv", 149, (101, 137, 0.88)),
    ("tone_crisis_blind12.tsv", 150, (102, 129, 0.93)),
    ("tone_crisis_blind13.tsv", 148, (121, 134, 0.95)),
)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "crisis_rows", "floors"), CRISIS_SETS)
def test_each_crisis_set_keeps_its_evidence_figures(
    detector: ToneDetector, read: dict[str, str], name: str, crisis_rows: int, floors: tuple[int, int, float]
) -> None:
    """Explicit evidence is read as crisis; a risk only implied is at least asked about (concern)."""
    explicit_floor, concern_floor, precision_floor = floors
    crisis = scored(detector, name, read)
    assert crisis.recall("crisis")[1] == crisis_rows
    assert crisis.crisis_recall_where(EVIDENCE, explicit=True)[0] >= explicit_floor
    assert crisis.read_as("crisis", "crisis", "elevated", "concern")[0] >= concern_floor
    right, said = crisis.precision("crisis")
    assert right / said >= precision_floor


@pytest.mark.slow
def test_ordinary_chat_is_never_read_as_crisis(detector: ToneDetector, read: dict[str, str]) -> None:
    """The 1,308 turns of the LoCoMo dev conversations held out from the head's training: no crisis, 7
    (0.53 %) read as concern or above when the evidence gate came in (before it: 3 crises and 1.07 %
    concern or above). The 1,449 trained-on turns read 0 / 0 (`bench tone`, not repeated here)."""
    held_out = scored(detector, "tone_chat_heldout.tsv", read)
    assert len(held_out.cases) >= 1300
    assert held_out.share_read_as("crisis") == 0.0
    assert held_out.share_read_as("crisis", "elevated", "concern") <= 0.01


@pytest.mark.slow
def test_ordinary_chat_in_other_languages_is_never_a_crisis_and_seldom_asked(
    detector: ToneDetector, read: dict[str, str]
) -> None:
    """Every fifth line of the measuring half of the other-language chat (27 languages, nobody here wrote
    it, the head never saw it): no crisis, and the multilingual head asks of at most 1 % (`bench tone`
    on the whole file: docs/tone_eval.md)."""
    chat = scored(detector, OTHER_LANGUAGES_CHAT, read, every=5)
    assert len(chat.cases) >= 1300
    assert chat.share_read_as("crisis") == 0.0
    assert chat.share_read_as("crisis", "elevated", "concern") <= 0.01


@pytest.mark.slow
def test_crisis_rows_in_other_languages_are_at_least_asked_about(detector: ToneDetector) -> None:
    """The 78 crisis rows of the thirteen sets written in other languages: before the multilingual head, 21
    were read (explicit statements, as crises) and 57 not at all; with it 58 are at least asked about."""
    from core.pipeline.tone_languages import reads_as_english

    names = ("tone_blind.tsv", *(f"tone_crisis_blind{n}.tsv" for n in range(3, 14)))
    rows = [
        case.text
        for name in names
        for case in read_cases(DATA / name)
        if case.level == "crisis" and not reads_as_english(case.text)
    ]
    levels = [detector.detect(text).level for text in rows]
    assert len(rows) == 78
    assert levels.count(ToneLevel.CRISIS) >= 20
    assert sum(level is not ToneLevel.CONVERSATIONAL for level in levels) >= 55


ORDINARY = (
    "Can't wait to see them and go for a walk by the river.",
    "It's hard, but I'm keeping at it.",
    "Sorry, I just remembered I already have plans that day.",
    "Now I'll figure out when it suits me better.",
    "Sounds good. Well I'll make sure I give the turtles a bath before you get here",
    "You got that right, but I'm very happy with the descision and wouldn't have it any other way.",
)


@pytest.mark.slow
@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_sentences_the_head_once_read_as_crisis_read_conversational(
    detector: ToneDetector, text: str
) -> None:
    """A user got the suicide and emergency text for the first four; the head reads each as crisis at
    p ≥ 0.9, and nothing in the words says a risk or a distress."""
    result = detector.detect(text)
    assert (result.level, result.support) == (ToneLevel.CONVERSATIONAL, None)


@pytest.mark.slow
def test_the_head_keeps_the_labelled_floors(detector: ToneDetector, read: dict[str, str]) -> None:
    """The lexicon's own development cases (also head training data): 32/32 crisis, accuracy ≥ 0.95."""
    labelled = scored(detector, "tone_labelled.tsv", read)
    assert labelled.accuracy >= 0.95
    assert labelled.recall("crisis")[0] >= 31


def test_a_head_with_a_hidden_layer_reads_through_its_relu() -> None:
    """x=(1, 0): hidden ReLU(1, -1) = (1, 0) -> logits (0, 2): the second label wins."""
    import numpy as np

    from core.pipeline.linear_head import LinearHead

    hidden = (np.array([[1.0, -1.0], [0.0, 0.0]]), np.zeros(2))
    weights = np.array([[0.0, 2.0], [5.0, 0.0]])
    head = LinearHead(lambda _: [1.0, 0.0], weights, np.zeros(2), ("a", "b"), hidden=hidden)
    votes = head.vote("anything")
    assert votes["b"] > 0.8 and abs(sum(votes.values()) - 1.0) < 1e-6
