"""Train a head (`data/<name>_head.npz`) on its shipped labelled examples.

    python -m eval.train_head intent|tone [--examples FILE] [--out FILE]

The intent head is a softmax regression over MiniLM vectors, full-batch gradient descent from zeros with L2:
deterministic up to floating-point summation order. The tone head puts one ReLU layer of `HIDDEN[tone]`
units under its softmax (scikit-learn's MLP, fixed seed): with real chat among its examples, a linear
boundary could not keep "take care!" and a recipe away from crisis while catching paraphrased risk. 10–40 s
on one core, most of it embedding the examples. Run it after editing an examples file; a test fails while
the weights' digest and the files disagree.
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
HIDDEN = {"tone": 64}  # heads with a hidden layer, and its width
MLP_L2 = (
    1e-2  # 1e-3 before batch 6: with it the head read elevated distress as crisis at p≈1 ("stuck in a rut")
)


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


def fit_hidden(vectors: Any, labels: Sequence[int], width: int) -> tuple[tuple[Any, Any], Any, Any]:
    """(hidden weights, hidden bias), output weights and output bias of a one-layer ReLU MLP."""
    import numpy as np
    from sklearn.neural_network import MLPClassifier

    mlp = MLPClassifier(hidden_layer_sizes=(width,), alpha=MLP_L2, max_iter=500, random_state=0)
    mlp.fit(np.asarray(vectors), np.asarray(labels))
    (hidden, out), (hidden_bias, out_bias) = mlp.coefs_, mlp.intercepts_
    as32 = np.float32
    return (hidden.astype(as32), hidden_bias.astype(as32)), out.astype(as32), out_bias.astype(as32)


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
    width = HIDDEN.get(spec.name)
    if width:
        hidden, weights, bias = fit_hidden(vectors, labels, width)
        layers: dict[str, Any] = {"hidden_weights": hidden[0], "hidden_bias": hidden[1]}
        scale = 1.0
    else:
        weights, bias = fit(vectors, labels, len(spec.labels))
        layers, hidden, scale = {}, None, SCALE
    predicted = probabilities(vectors, weights, bias, scale, hidden).argmax(axis=1)
    training = float((predicted == np.asarray(labels)).mean())
    out = args.out or spec.weights_file
    np.savez(
        out,
        weights=weights,
        bias=bias,
        scale=np.float32(scale),
        model=np.str_(MINILM_NAME),
        labels=np.array(spec.labels),
        digest=np.str_(training_digest(examples)),
        **layers,
    )
    print(f"{len(examples)} examples, training accuracy {training:.3f} → {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
