"""The shipped tone detector (lexicon, MiniLM head and the parse-based danger reader): the head's weights
match its examples and it never saw the held-out sets; the detector reads paraphrased distress the lexicon
misses (`tests/data/tone_blind.tsv`, 160 messages written without reading the lexicon or the training
examples) and crisis phrasings written elsewhere (`tests/data/tone_crisis_blind3.tsv`, 134: the danger
reader's development set since December 2026; `tests/data/tone_crisis_blind4.tsv`, 170: the development set
of the slang, fragment and veto rules, see docs/tone_eval.md), and real casual chat nobody here wrote
is almost never read as distress (`tests/data/tone_chat_heldout.tsv`: 1,308 turns of LoCoMo conversations
the head never saw; `eval/training/tone_chat_negatives.tsv` holds the other three, which it was trained
on)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.pipeline.linear_head import TONE_HEAD, read_head_digest, training_digest
from core.pipeline.tone import ToneDetector
from eval.benchmarks.tone_bench import ToneScore, read_cases, score
from eval.training_sets import TRAINING_DIR, training_examples

DATA = Path(__file__).resolve().parents[2] / "data"
TRAINED_CHAT = TRAINING_DIR / "tone_chat_negatives.tsv"


def key(text: str) -> str:
    """The text without case or punctuation; letters of every script and emoji kept ("🔪🩸 again" and
    "🩸🩸🩸 again" are two messages, and so are two Korean sentences)."""
    return re.sub(r"(?:[^\w\u2600-\u27bf\U0001f000-\U0001faff]|_)+", " ", text.lower()).strip()


def test_the_shipped_weights_were_trained_on_the_shipped_examples() -> None:
    # Editing data/tone_examples.tsv without retraining (python -m eval.train_head tone) fails here.
    assert read_head_digest(TONE_HEAD) == training_digest(training_examples(TONE_HEAD))


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
    "tone_chat_heldout.tsv",
)


@pytest.mark.parametrize("name", HELD_OUT)
def test_no_held_out_message_is_a_training_example(name: str) -> None:
    training = {key(text) for text, _ in training_examples(TONE_HEAD)}
    assert len(training) >= 2500
    assert not training & {key(case.text) for case in read_cases(DATA / name)}


@pytest.fixture(scope="module")
def detector() -> ToneDetector:
    """Built as `app.builders.models.build_analyzer` builds it."""
    from core.nlp import SpacyPipeline
    from core.pipeline.tone_danger import DangerReader
    from memory.embeddings import MiniLMEmbedder
    from memory.tuned_encoder import load_head_for

    embedder = MiniLMEmbedder(threads=1)
    head = load_head_for(TONE_HEAD, embedder)
    return ToneDetector(head=head, danger=DangerReader(SpacyPipeline()))


def scored(detector: ToneDetector, name: str) -> ToneScore:
    return score(read_cases(DATA / name), lambda text: detector.detect(text).level.value)


@pytest.mark.slow
def test_the_head_lifts_accuracy_on_the_blind_set(detector: ToneDetector) -> None:
    """docs/tone_eval.md: lexicon alone 0.594 (crisis 14/30); shipped 0.900 (crisis 30/30) since the head's
    encoder is tuned (0.869 with the frozen encoder)."""
    blind = scored(detector, "tone_blind.tsv")
    assert len(blind.cases) >= 150
    assert blind.accuracy >= 0.85
    hits, total = blind.recall("crisis")
    assert hits / total >= 0.9
    kept, calm = blind.calm_kept()
    assert kept / calm >= 0.8


@pytest.mark.slow
def test_ordinary_chat_is_almost_never_read_as_distress(detector: ToneDetector) -> None:
    """Real chat between friends (no crisis in it): 2/1,308 held-out turns (0.15 %) read as crisis and 13
    (0.99 %; 2.22 % with the frozen encoder) as concern or above; before the chat negatives and the
    risk-evidence rule, 9.0 % crisis over all the dev conversations' turns."""
    chat = scored(detector, "tone_chat_heldout.tsv")
    assert len(chat.cases) >= 1300
    assert chat.share_read_as("crisis") <= 0.003
    assert chat.share_read_as("crisis", "elevated", "concern") <= 0.05


@pytest.mark.slow
def test_every_dev_conversation_turn_is_almost_never_read_as_distress(detector: ToneDetector) -> None:
    """All 2,757 turns of the five LoCoMo dev conversations (the held-out two and the three the head was
    trained on): 2 read as crisis (0.07 %), 13 as concern or above (0.47 %; 1.09 % with the frozen
    encoder)."""
    turns = [*read_cases(DATA / "tone_chat_heldout.tsv"), *read_cases(TRAINED_CHAT)]
    chat = score(turns, lambda text: detector.detect(text).level.value)
    assert len(chat.cases) >= 2750
    assert chat.share_read_as("crisis") <= 0.003
    assert chat.share_read_as("crisis", "elevated", "concern") <= 0.05


@pytest.mark.slow
def test_crisis_phrasings_written_elsewhere_are_caught(detector: ToneDetector) -> None:
    """tone_crisis_blind3.tsv (82 crisis rows: suicidal, self-harm, overdose, danger told as a scene, medical
    emergencies; 52 hard negatives): lexicon alone 17/82; with the head 72/82 on first measurement, 69/82
    once questions to an assistant joined as calm examples; with the danger reader 79/82 = 0.963, precision
    79/87 = 0.908 (was 0.896); 78/82 = 0.951, precision 78/82 after the fourth set's round, 78/81 after the
    fifth's, 82/82, precision 82/84 with the tuned encoder. The set was the
    danger reader's development set, so these figures are optimistic; the honest measurement is a later,
    unseen set (docs/tone_eval.md)."""
    blind = scored(detector, "tone_crisis_blind3.tsv")
    hits, total = blind.recall("crisis")
    assert total >= 80 and hits / total >= 0.95
    right, said = blind.precision("crisis")
    assert right / said >= 0.9


@pytest.mark.slow
def test_the_fourth_crisis_set_is_caught(detector: ToneDetector) -> None:
    """tone_crisis_blind4.tsv (100 crisis rows, 70 hard negatives): 83/100 = 0.830, precision 83/91 when first
    measured unseen; 95/100 = 0.950, precision 95/96 since it became the development set of the slang,
    fragment and veto rules and batch 6 joined the head's training; 96/100, precision 96/97 after the fifth
    set's round; 99/100, precision 99/99 with the tuned encoder (docs/tone_eval.md). A development floor,
    not an estimate."""
    blind = scored(detector, "tone_crisis_blind4.tsv")
    hits, total = blind.recall("crisis")
    assert total >= 100 and hits / total >= 0.95
    right, said = blind.precision("crisis")
    assert right / said >= 0.9


@pytest.mark.slow
def test_the_fifth_crisis_set_is_caught(detector: ToneDetector) -> None:
    """tone_crisis_blind5.tsv (120 crisis rows, 80 hard negatives): 103/120 = 0.858, precision 103/107 when
    first measured unseen; 118/120, precision 118/121 since it became the development set of the grammar
    classes of its round and batch 7 joined the head's training; 117/120, precision 117/120 with the tuned
    encoder and its four-word floor (docs/tone_eval.md). A development floor, not an estimate."""
    blind = scored(detector, "tone_crisis_blind5.tsv")
    hits, total = blind.recall("crisis")
    assert total >= 120 and hits / total >= 0.95
    right, said = blind.precision("crisis")
    assert right / said >= 0.95


@pytest.mark.slow
def test_the_sixth_crisis_set_keeps_its_figures(detector: ToneDetector) -> None:
    """tone_crisis_blind6.tsv (150 crisis rows, 148 hard negatives), measured once unseen: recall 115/150 =
    0.767; 122/150 after batch 8, 126/150 after batch 9 and the thresholds calibrated with them, 126/150,
    precision 126/130 with the tuned encoder, 131/150, precision 131/133 with batch 11 and the sure head's
    readings (docs/tone_eval.md). Its misses were read for the care frame's shape: a development set now."""
    blind = scored(detector, "tone_crisis_blind6.tsv")
    hits, total = blind.recall("crisis")
    assert total == 150 and hits >= 128
    right, said = blind.precision("crisis")
    assert right / said >= 0.95


@pytest.mark.slow
def test_the_seventh_crisis_set_keeps_its_unseen_figures(detector: ToneDetector) -> None:
    """tone_crisis_blind7.tsv (150 crisis rows, 150 negatives), measured once unseen: recall 116/150 =
    0.773, precision 116/126, 9 of the 110 calm negatives read as crisis (docs/tone_eval.md). Not read for
    misses: this guards the figure against a change that loses what it had."""
    blind = scored(detector, "tone_crisis_blind7.tsv")
    hits, total = blind.recall("crisis")
    assert total == 150 and hits >= 138  # 126 after batch 9, 130 tuned encoder, 141 batch 11 (misses unread)
    right, said = blind.precision("crisis")
    assert right / said >= 0.9


@pytest.mark.slow
def test_the_eighth_crisis_set_keeps_its_unseen_figures(detector: ToneDetector) -> None:
    """tone_crisis_blind8.tsv (150 crisis rows, 150 negatives), measured once unseen after batch 9: recall
    115/150 = 0.767, precision 115/125, 9 of the 110 calm negatives read as crisis (95/150 at the start of
    that round, 104/150 after batch 8; docs/tone_eval.md). Nobody's development set yet."""
    blind = scored(detector, "tone_crisis_blind8.tsv")
    hits, total = blind.recall("crisis")
    assert total == 150 and hits >= 134  # 119 with the tuned encoder, 138 with batch 11 (misses read once)
    right, said = blind.precision("crisis")
    assert right / said >= 0.9


@pytest.mark.slow
def test_the_ninth_crisis_set_keeps_its_unseen_figures(detector: ToneDetector) -> None:
    """tone_crisis_blind9.tsv (150 crisis rows, 149 negatives, some in other languages), measured once
    unseen after the other-language statements: recall 126/150 = 0.840, precision 126/139
    (docs/tone_eval.md). Not read for misses."""
    blind = scored(detector, "tone_crisis_blind9.tsv")
    hits, total = blind.recall("crisis")
    assert total == 150 and hits >= 143  # 135 with the tuned encoder, 147 with batch 11 (misses read once)
    right, said = blind.precision("crisis")
    assert right / said >= 0.9


@pytest.mark.slow
def test_the_tenth_crisis_set_keeps_its_unseen_figures(detector: ToneDetector) -> None:
    """tone_crisis_blind10.tsv (150 crisis rows, 150 negatives, some in other languages), written by a
    helper who read no code and no set, measured once with the frozen-encoder head (125/150 = 0.833,
    precision 125/135) and once with the tuned encoder: 132/150 = 0.880, precision 132/140; 7 of 110 calm
    rows read as crisis (docs/tone_eval.md). Its misses were read once, for the reading of an emergency of
    someone in the user's care; not trained on. With batch 11 and the sure head's readings: 148/150,
    precision 148/154."""
    blind = scored(detector, "tone_crisis_blind10.tsv")
    hits, total = blind.recall("crisis")
    assert total == 150 and hits >= 144
    right, said = blind.precision("crisis")
    assert right / said >= 0.9


@pytest.mark.slow
def test_the_eleventh_crisis_set_keeps_its_unseen_figures(detector: ToneDetector) -> None:
    """tone_crisis_blind11.tsv (149 crisis rows, 150 negatives), written by a helper who read no code and no
    set and was asked for the messages a detector would most plausibly miss or flag wrongly. Measured once
    before this round's changes (130/150 = 0.867, precision 130/141) and once after them (143/150 = 0.953,
    precision 143/155; 11 of 110 calm rows read as crisis); then one crisis row that a training file
    already had was dropped: 142/149 = 0.953 (docs/tone_eval.md)."""
    blind = scored(detector, "tone_crisis_blind11.tsv")
    hits, total = blind.recall("crisis")
    assert total == 149 and hits >= 139
    right, said = blind.precision("crisis")
    assert right / said >= 0.9


@pytest.mark.slow
def test_the_head_keeps_the_labelled_floors(detector: ToneDetector) -> None:
    """The lexicon's own development cases (also head training data): 0.950, 64/70 calm kept (the lexicon
    alone keeps all 70). The tuned head reads worry told of someone else ("my son is nervous about starting
    school") as concern; a worry the user negates ("I'm not anxious about the trip") it may not raise."""
    labelled = scored(detector, "tone_labelled.tsv")
    assert labelled.accuracy >= 0.95
    kept, calm = labelled.calm_kept()
    assert kept / calm >= 0.9


def test_a_head_with_a_hidden_layer_reads_through_its_relu() -> None:
    """x=(1, 0): hidden ReLU(1, -1) = (1, 0) -> logits (0, 2): the second label wins."""
    import numpy as np

    from core.pipeline.linear_head import LinearHead

    hidden = (np.array([[1.0, -1.0], [0.0, 0.0]]), np.zeros(2))
    weights = np.array([[0.0, 2.0], [5.0, 0.0]])
    head = LinearHead(lambda _: [1.0, 0.0], weights, np.zeros(2), ("a", "b"), hidden=hidden)
    votes = head.vote("anything")
    assert votes["b"] > 0.8 and abs(sum(votes.values()) - 1.0) < 1e-6
