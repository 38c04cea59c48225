"""Train the linear intent head (`data/intent_head.npz`) on the shipped labelled queries.

    python -m eval.train_intent_head [--examples data/intent_examples.tsv] [--out data/intent_head.npz]

Softmax regression over MiniLM vectors, full-batch gradient descent from zeros with L2: deterministic up to
floating-point summation order, about 20 s on one core (almost all of it embedding the examples). Run it
after editing the examples file; a test fails while the weights' digest and the file disagree.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.config import INTENT_NAMES
from core.pipeline.intent_head import EXAMPLES_FILE, HEAD_FILE, probabilities, read_examples, training_digest

L2 = 1e-3
SCALE = 10.0  # the logits' temperature: sharper probabilities than unit-norm vectors give on their own
STEPS = 800
LEARNING_RATE = 0.5


def fit(
    vectors: Any, labels: Sequence[int], *, l2: float = L2, scale: float = SCALE, steps: int = STEPS
) -> Any:
    """Weights (dim × intents) and bias of a softmax regression on unit `vectors`."""
    import numpy as np

    x = np.asarray(vectors, dtype=np.float64)
    targets = np.eye(len(INTENT_NAMES))[np.asarray(labels)]
    weights = np.zeros((x.shape[1], len(INTENT_NAMES)))
    bias = np.zeros(len(INTENT_NAMES))
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
    parser.add_argument("--examples", type=Path, default=EXAMPLES_FILE)
    parser.add_argument("--out", type=Path, default=HEAD_FILE)
    args = parser.parse_args(argv)
    examples = read_examples(args.examples)
    vectors = unit_vectors([query for query, _ in examples])
    labels = [INTENT_NAMES.index(intent) for _, intent in examples]
    weights, bias = fit(vectors, labels)
    training = float(
        (probabilities(vectors, weights, bias, SCALE).argmax(axis=1) == np.asarray(labels)).mean()
    )
    np.savez(
        args.out,
        weights=weights,
        bias=bias,
        scale=np.float32(SCALE),
        model=np.str_(MINILM_NAME),
        intents=np.array(INTENT_NAMES),
        digest=np.str_(training_digest(examples)),
    )
    print(f"{len(examples)} examples, training accuracy {training:.3f} → {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
