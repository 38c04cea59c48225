"""Train a linear head (`data/<name>_head.npz`) on its shipped labelled examples.

    python -m eval.train_head intent|tone [--examples FILE] [--out FILE]

Softmax regression over MiniLM vectors, full-batch gradient descent from zeros with L2: deterministic up to
floating-point summation order, 10–20 s on one core (almost all of it embedding the examples). Run it after
editing an examples file; a test fails while the weights' digest and the file disagree.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.pipeline.linear_head import INTENT_HEAD, TONE_HEAD, probabilities, read_examples, training_digest

SPECS = {spec.name: spec for spec in (INTENT_HEAD, TONE_HEAD)}
L2 = 1e-3
SCALE = 10.0  # the logits' temperature: sharper probabilities than unit-norm vectors give on their own
STEPS = 800
LEARNING_RATE = 0.5


def fit(
    vectors: Any,
    labels: Sequence[int],
    classes: int,
    *,
    l2: float = L2,
    scale: float = SCALE,
    steps: int = STEPS,
) -> Any:
    """Weights (dim × classes) and bias of a softmax regression on unit `vectors`."""
    import numpy as np

    x = np.asarray(vectors, dtype=np.float64)
    targets = np.eye(classes)[np.asarray(labels)]
    weights = np.zeros((x.shape[1], classes))
    bias = np.zeros(classes)
    for _ in range(steps):
        error = probabilities(x, weights, bias, scale) - targets
        weights -= LEARNING_RATE * (scale * x.T @ error / len(x) + l2 * weights)
        bias -= LEARNING_RATE * scale * error.mean(axis=0)
    return weights.astype(np.float32), bias.astype(np.float32)


def unit_vectors(texts: Sequence[str]) -> Any:
    """MiniLM vectors of `texts`, normalised to unit length."""
    import numpy as np

    from memory.embeddings import MiniLMEmbedder

    matrix = np.asarray(MiniLMEmbedder(threads=1).embed(list(texts)), dtype=np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def main(argv: Sequence[str] | None = None) -> int:
    import numpy as np

    from memory.embeddings import MINILM_NAME

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("head", choices=sorted(SPECS))
    default = "default: the head's example files in data/"
    parser.add_argument("--examples", type=Path, default=None, help=default)
    parser.add_argument("--out", type=Path, default=None, help="default: data/<head>_head.npz")
    args = parser.parse_args(argv)
    spec = SPECS[args.head]
    examples = read_examples(spec, args.examples)
    vectors = unit_vectors([text for text, _ in examples])
    labels = [spec.labels.index(label) for _, label in examples]
    weights, bias = fit(vectors, labels, len(spec.labels))
    training = float(
        (probabilities(vectors, weights, bias, SCALE).argmax(axis=1) == np.asarray(labels)).mean()
    )
    out = args.out or spec.weights_file
    np.savez(
        out,
        weights=weights,
        bias=bias,
        scale=np.float32(SCALE),
        model=np.str_(MINILM_NAME),
        labels=np.array(spec.labels),
        digest=np.str_(training_digest(examples)),
    )
    print(f"{len(examples)} examples, training accuracy {training:.3f} → {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
