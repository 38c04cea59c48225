"""The shipped tone head with MiniLM: its weights match its examples, it never saw the held-out sets, with it
the detector reads paraphrased distress the lexicon misses (`tests/data/tone_blind.tsv`, 160 messages, and
`tests/data/tone_crisis_blind3.tsv`, 134, both written without reading the lexicon or the training examples),
and real casual chat nobody here wrote is almost never read as distress (`tests/data/tone_chat_heldout.tsv`:
1,308 turns of LoCoMo conversations the head never saw; `data/tone_chat_negatives.tsv` holds the other three,
which it was trained on)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.pipeline.linear_head import TONE_HEAD, load_head, read_examples, read_head_digest, training_digest
from core.pipeline.tone import ToneDetector
from eval.tone_report import ToneScore, read_cases, score

DATA = Path(__file__).resolve().parents[2] / "data"


def key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def test_the_shipped_weights_were_trained_on_the_shipped_examples() -> None:
    # Editing data/tone_examples.tsv without retraining (python -m eval.train_head tone) fails here.
    assert read_head_digest(TONE_HEAD) == training_digest(read_examples(TONE_HEAD))


HELD_OUT = ("tone_blind.tsv", "tone_crisis_blind3.tsv", "tone_chat_heldout.tsv")


@pytest.mark.parametrize("name", HELD_OUT)
def test_no_held_out_message_is_a_training_example(name: str) -> None:
    training = {key(text) for text, _ in read_examples(TONE_HEAD)}
    assert len(training) >= 2500
    assert not training & {key(case.text) for case in read_cases(DATA / name)}


@pytest.fixture(scope="module")
def detector() -> ToneDetector:
    from memory.embeddings import MiniLMEmbedder

    embedder = MiniLMEmbedder(threads=1)
    return ToneDetector(head=load_head(TONE_HEAD, embedder.embed_query, embedder.name))


def scored(detector: ToneDetector, name: str) -> ToneScore:
    return score(read_cases(DATA / name), lambda text: detector.detect(text).level.value)


@pytest.mark.slow
def test_the_head_lifts_accuracy_on_the_blind_set(detector: ToneDetector) -> None:
    """docs/tone_eval.md: lexicon alone 0.594 (crisis 14/30); with the head 0.881 (crisis 28/30)."""
    blind = scored(detector, "tone_blind.tsv")
    assert len(blind.cases) >= 150
    assert blind.accuracy >= 0.85
    hits, total = blind.recall("crisis")
    assert hits / total >= 0.9
    kept, calm = blind.calm_kept()
    assert kept / calm >= 0.8


@pytest.mark.slow
def test_ordinary_chat_is_almost_never_read_as_distress(detector: ToneDetector) -> None:
    """Real chat between friends (no crisis in it): 3/1,308 held-out turns (0.23 %) read as crisis and 21
    (1.6 %) as concern or above; before the chat negatives and the risk-evidence rule, 9.0 % crisis over all
    the dev conversations' turns."""
    chat = scored(detector, "tone_chat_heldout.tsv")
    assert len(chat.cases) >= 1300
    assert chat.share_read_as("crisis") <= 0.003
    assert chat.share_read_as("crisis", "elevated", "concern") <= 0.05


@pytest.mark.slow
def test_crisis_phrasings_written_elsewhere_are_mostly_caught(detector: ToneDetector) -> None:
    """tone_crisis_blind3.tsv (82 crisis rows: suicidal, self-harm, overdose, danger told as a scene, medical
    emergencies; 52 hard negatives): crisis recall 72/82 on first measurement, 74/82 after the second blind
    set joined the training data, 69/82 once questions to an assistant joined as calm examples ("Where did I
    go on my trip?" had been read as crisis); lexicon alone 17/82. Below 0.95: see docs/tone_eval.md."""
    blind = scored(detector, "tone_crisis_blind3.tsv")
    hits, total = blind.recall("crisis")
    assert total >= 80 and hits / total >= 0.8
    right, said = blind.precision("crisis")
    assert right / said >= 0.82


@pytest.mark.slow
def test_the_head_keeps_the_labelled_floors(detector: ToneDetector) -> None:
    labelled = scored(detector, "tone_labelled.tsv")
    assert labelled.accuracy >= 0.95
    kept, calm = labelled.calm_kept()
    assert kept == calm


def test_a_head_with_a_hidden_layer_reads_through_its_relu() -> None:
    """x=(1, 0): hidden ReLU(1, -1) = (1, 0) -> logits (0, 2): the second label wins."""
    import numpy as np

    from core.pipeline.linear_head import LinearHead

    hidden = (np.array([[1.0, -1.0], [0.0, 0.0]]), np.zeros(2))
    weights = np.array([[0.0, 2.0], [5.0, 0.0]])
    head = LinearHead(lambda _: [1.0, 0.0], weights, np.zeros(2), ("a", "b"), hidden=hidden)
    votes = head.vote("anything")
    assert votes["b"] > 0.8 and abs(sum(votes.values()) - 1.0) < 1e-6
