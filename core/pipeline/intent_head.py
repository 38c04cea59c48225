"""A linear intent head over sentence embeddings: a second opinion on messages the cue lexicon is unsure of.

Cue patterns recognise forms ("what is my <x>", "when did I"); a message phrased without any of them falls
to the `general` prior. A softmax regression over the message's MiniLM vector, trained offline on the
labelled queries (`python -m eval.train_intent_head`), says which intent such messages usually carry. It
generalises better to unseen phrasing than a nearest-neighbour vote and ships as a 14 KB weight file, so
nothing is computed at start-up: one embedding (shared with retrieval's query cache) and one 384×9 product.

The weight file records the embedding model it was trained for and a digest of its training texts; a file
for another model is refused (its vectors would mean nothing here), and a test keeps the digest in step
with `data/intent_examples.tsv`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from core.config import INTENT_NAMES

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
HEAD_FILE = DATA_DIR / "intent_head.npz"
EXAMPLES_FILE = DATA_DIR / "intent_examples.tsv"
EmbedQuery = Callable[[str], Sequence[float]]  # one text → its vector (MiniLMEmbedder.embed_query, cached)


class IntentHeadError(ValueError):
    """The weight file cannot be used (missing, unreadable, or trained for another embedding model)."""


class IntentHead:
    """Intent probabilities for a text from its embedding. Stateless after loading; thread-safe."""

    def __init__(self, embed_query: EmbedQuery, weights: Any, bias: Any, *, scale: float = 1.0) -> None:
        import numpy as np

        self._embed_query = embed_query
        self._weights = np.asarray(weights, dtype=np.float32)
        self._bias = np.asarray(bias, dtype=np.float32)
        if self._weights.ndim != 2 or self._weights.shape[1] != len(INTENT_NAMES):
            raise IntentHeadError(f"weights must be (dim, {len(INTENT_NAMES)}), got {self._weights.shape}")
        if self._bias.shape != (len(INTENT_NAMES),):
            raise IntentHeadError(f"bias must have {len(INTENT_NAMES)} entries, got {self._bias.shape}")
        self._scale = float(scale)

    def vote(self, text: str) -> dict[str, float]:
        """Each intent's probability for `text` (they add up to 1)."""
        import numpy as np

        vector = np.asarray(self._embed_query(text), dtype=np.float32)
        if vector.shape[0] != self._weights.shape[0]:
            raise IntentHeadError(
                f"embedding has {vector.shape[0]} dims, the head expects {self._weights.shape[0]}"
            )
        vector = vector / (float(np.linalg.norm(vector)) or 1.0)  # a cached vector is read-only
        return dict(
            zip(
                INTENT_NAMES,
                (float(p) for p in probabilities(vector, self._weights, self._bias, self._scale)),
                strict=True,
            )
        )


def probabilities(vectors: Any, weights: Any, bias: Any, scale: float) -> Any:
    """Softmax of `scale · (vectors · weights + bias)`, row-wise (one row or a matrix of rows)."""
    import numpy as np

    logits = scale * (np.atleast_2d(vectors) @ weights + bias)
    logits -= logits.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    out = exp / exp.sum(axis=1, keepdims=True)
    return out[0] if np.ndim(vectors) == 1 else out


def read_examples(path: Path = EXAMPLES_FILE) -> list[tuple[str, str]]:
    """(query, intent) rows of a `query<TAB>intent` file; blank and `#` lines are skipped."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            query, intent = line.split("\t")[:2]
            rows.append((query, intent))
    unknown = {intent for _, intent in rows} - set(INTENT_NAMES)
    if unknown:
        raise ValueError(f"{path} names unknown intents: {sorted(unknown)}")
    return rows


def training_digest(examples: Sequence[tuple[str, str]]) -> str:
    """A short digest of (query, intent) rows: the weight file names the data it was trained on."""
    joined = "\n".join(f"{query}\t{intent}" for query, intent in examples)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16]


def load_head(embed_query: EmbedQuery, model_name: str, path: Path = HEAD_FILE) -> IntentHead:
    """The shipped head for `embed_query`, whose model must be the one the weights were trained for."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            trained_for = str(data["model"])
            intents = [str(name) for name in data["intents"]]
            weights, bias, scale = data["weights"], data["bias"], float(data["scale"])
    except (OSError, KeyError, ValueError) as exc:
        raise IntentHeadError(f"cannot read the intent head {path}: {exc}") from exc
    if trained_for != model_name:
        raise IntentHeadError(f"{path} was trained for {trained_for!r}, not {model_name!r}")
    if intents != list(INTENT_NAMES):
        raise IntentHeadError(f"{path} names intents {intents}, expected {list(INTENT_NAMES)}")
    return IntentHead(embed_query, weights, bias, scale=scale)


def read_head_digest(path: Path = HEAD_FILE) -> str:
    """The training-data digest recorded in a weight file."""
    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        return str(data["digest"])
