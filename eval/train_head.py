"""Train a head (`data/<name>_head.npz`) on its shipped labelled examples.

    python -m eval.train_head intent|tone|evidence|tone_multilingual [--examples FILE] [--out FILE]

The intent and evidence heads are softmax regressions over MiniLM vectors, full-batch gradient descent from
zeros with L2: deterministic up to floating-point summation order, 10–40 s on one core, most of it embedding
the examples.
The tone head is one ReLU layer of 64 units under a softmax, trained together with MiniLM's top three
layers (`eval.tune_top`, fixed seed, about 4 minutes on two cores): with real chat among its examples, a
linear boundary could not keep "take care!" and a recipe away from crisis while catching paraphrased risk,
and over frozen vectors it stopped improving with more examples. The multilingual tone head is a softmax
regression over multilingual-e5-small vectors (`memory.multilingual_encoder`), fitted by scikit-learn on
standardised vectors (e5's vectors crowd into a narrow cone, where plain gradient descent on unit vectors
did not settle) and stored with the standardisation folded into its weights; about 10 minutes on two
cores, nearly all of it embedding. Run it after editing an examples file; a test fails while the weights'
digest and the files disagree.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.pipeline.linear_head import (
    EVIDENCE_HEAD,
    INTENT_HEAD,
    TONE_HEAD,
    TONE_MULTILINGUAL_HEAD,
    TUNED_PREFIX,
    HeadSpec,
    probabilities,
    training_digest,
)
from eval.training_sets import training_examples
from eval.tune_top import TuneSettings

SPECS = {spec.name: spec for spec in (INTENT_HEAD, TONE_HEAD, EVIDENCE_HEAD, TONE_MULTILINGUAL_HEAD)}
L2 = 1e-3
SCALE = 10.0  # the logits' temperature: sharper probabilities than unit-norm vectors give on their own
STEPS = 800
LEARNING_RATE = 0.5
TUNED = {"tone": TuneSettings()}  # heads trained with MiniLM's top layers (`eval.tune_top`)
MULTILINGUAL = {TONE_MULTILINGUAL_HEAD.name}  # heads over multilingual-e5-small vectors
# The regression's inverse L2 strength on standardised e5 vectors: 0.01-0.1 read the same on the tone
# development sets; 0.03 is the middle.
MULTILINGUAL_C = 0.03


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("head", choices=sorted(SPECS))
    default = "default: the head's examples in data/ and its batches in eval/training/"
    parser.add_argument("--examples", type=Path, default=None, help=default)
    parser.add_argument("--out", type=Path, default=None, help="default: data/<head>_head.npz")
    args = parser.parse_args(argv)
    spec = SPECS[args.head]
    examples = training_examples(spec, args.examples)
    texts = [text for text, _ in examples]
    labels = [spec.labels.index(label) for _, label in examples]
    if spec.name in TUNED:
        trained = _tuned(spec, texts, labels)
    elif spec.name in MULTILINGUAL:
        trained = _over_multilingual_vectors(texts, labels)
    else:
        trained = _over_vectors(spec, texts, labels)
    out = args.out or spec.weights_file
    _save(out, spec, examples, trained)
    print(f"{len(examples)} examples → {out}")
    return 0


def _tuned(spec: HeadSpec, texts: list[str], labels: list[int]) -> dict[str, Any]:
    """The head's layers and MiniLM's top layers, trained together (`eval.tune_top`)."""
    import numpy as np

    from eval.tune_top import tune
    from memory.embeddings import MiniLMEmbedder
    from memory.tuned_encoder import tuned_name

    settings = TUNED[spec.name]
    head = tune(MiniLMEmbedder(), texts, labels, len(spec.labels), settings)
    # float16 halves the file (11 MB for three layers); the loader widens it back to float32
    top = {f"{TUNED_PREFIX}{key}": value.astype(np.float16) for key, value in head.top.items()}
    layers = {"hidden_weights": head.hidden[0], "hidden_bias": head.hidden[1], **top}
    return {
        "weights": head.weights,
        "bias": head.bias,
        "scale": 1.0,
        "model": tuned_name(settings.layers),
        **layers,
    }


def _over_vectors(spec: HeadSpec, texts: list[str], labels: list[int]) -> dict[str, Any]:
    """A softmax regression over plain MiniLM vectors."""
    from memory.embeddings import MINILM_NAME

    weights, bias = fit(unit_vectors(texts), labels, len(spec.labels))
    return {"weights": weights, "bias": bias, "scale": SCALE, "model": MINILM_NAME}


def _over_multilingual_vectors(texts: list[str], labels: list[int]) -> dict[str, Any]:
    """A softmax regression over multilingual-e5-small vectors, standardised while fitting; the stored
    weights and bias read the unit vectors directly (x·(W/σ) + b − (μ/σ)·W)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from memory.multilingual_encoder import E5_NAME, MultilingualEncoder

    x = np.asarray(MultilingualEncoder(threads=2).embed(texts), dtype=np.float64)
    mean, spread = x.mean(axis=0), x.std(axis=0) + 1e-6
    model = LogisticRegression(C=MULTILINGUAL_C, max_iter=3000).fit((x - mean) / spread, np.asarray(labels))
    weights = (model.coef_ / spread).T
    bias = model.intercept_ - (model.coef_ * (mean / spread)).sum(axis=1)
    return {
        "weights": weights.astype(np.float32),
        "bias": bias.astype(np.float32),
        "scale": 1.0,
        "model": E5_NAME,
    }


def _save(out: Path, spec: HeadSpec, examples: Sequence[tuple[str, str]], trained: dict[str, Any]) -> None:
    import numpy as np

    np.savez(
        out,
        **{**trained, "scale": np.float32(trained["scale"]), "model": np.str_(trained["model"])},
        labels=np.array(spec.labels),
        digest=np.str_(training_digest(examples)),
    )


if __name__ == "__main__":
    raise SystemExit(main())
