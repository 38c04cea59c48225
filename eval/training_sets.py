"""What each head is trained on: its shipped examples (`data/<name>_examples.tsv`), then the training
batches in `eval/training/` (`<head>_batch_NN.tsv`, numbered in the order they were written, and
`tone_chat_negatives.tsv`, real chat that must read as calm), then rows of another head's examples read as
calm. The order is part of the digest a weight file records, so it only ever grows at the end.
"""

from __future__ import annotations

from pathlib import Path

from core.pipeline.linear_head import (
    EVIDENCE_HEAD,
    INTENT_HEAD,
    TONE_HEAD,
    TONE_MULTILINGUAL_HEAD,
    HeadSpec,
    read_rows,
)

TRAINING_DIR = Path(__file__).resolve().parent / "training"
BATCHES: dict[str, tuple[str, ...]] = {
    INTENT_HEAD.name: (),
    EVIDENCE_HEAD.name: (),
    # Without ordinary chat among its examples, a head trained on balanced levels reads "take care!" or
    # "don't give up!" as crisis (the balanced set's prior makes a quarter of everything crisis).
    TONE_HEAD.name: (
        "tone_batch_03.tsv",
        "tone_batch_04.tsv",
        "tone_chat_negatives.tsv",
        "tone_batch_05.tsv",
        "tone_batch_06.tsv",
        "tone_batch_07.tsv",
        "tone_batch_08.tsv",
        "tone_batch_09.tsv",
        "tone_batch_10.tsv",
        "tone_batch_11.tsv",
    ),
}
# Another head's rows read as calm: every row whose label is not excluded becomes one example of the head's
# first label (the tone head learns that questions to an assistant are not distress from the intent
# examples, minus the emotional-support ones; the evidence head that telling one's day in the first person
# states no risk from the tone head's real chat).
CALM_FROM: dict[str, tuple[Path, HeadSpec, tuple[str, ...]]] = {
    TONE_HEAD.name: (INTENT_HEAD.examples_file, INTENT_HEAD, ("emotional_support",)),
    EVIDENCE_HEAD.name: (TRAINING_DIR / "tone_chat_negatives.tsv", TONE_HEAD, ()),
}

# A head over another encoder's vectors that learns what another head learns, then rows of its own: the
# multilingual tone head reads the tone head's examples (English, with a few hundred rows in other
# languages) and ordinary chat in 27 other languages as calm, without which a crisis reading over
# multilingual vectors is a reading of "not English".
LEARNS_AS: dict[str, tuple[HeadSpec, tuple[str, ...]]] = {
    TONE_MULTILINGUAL_HEAD.name: (TONE_HEAD, ("multilingual_chat_negatives.tsv",)),
}


def training_files(spec: HeadSpec) -> tuple[Path, ...]:
    """The head's own example files, in training order."""
    return (spec.examples_file, *(TRAINING_DIR / name for name in BATCHES[spec.name]))


def training_examples(spec: HeadSpec, path: Path | None = None) -> list[tuple[str, str]]:
    """(text, label) rows the head is trained on: `path` alone, else every training file and then the
    calm rows of `CALM_FROM` (for a head of `LEARNS_AS`: the other head's rows, then its own files')."""
    if path is not None:
        return read_rows(path, spec.labels)
    if spec.name in LEARNS_AS:
        base, own = LEARNS_AS[spec.name]
        return training_examples(base) + [
            row for name in own for row in read_rows(TRAINING_DIR / name, spec.labels)
        ]
    rows = [row for file in training_files(spec) for row in read_rows(file, spec.labels)]
    if spec.name in CALM_FROM:
        file, other, excluded = CALM_FROM[spec.name]
        calm = spec.labels[0]
        rows += [(text, calm) for text, label in read_rows(file, other.labels) if label not in excluded]
    return rows
