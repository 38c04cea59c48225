"""Linear heads over sentence embeddings: second opinions on what the lexicons are unsure of.

Cue lexicons recognise forms ("what is my <x>", "I can't breathe"); a message phrased without any of them
gets no evidence. A softmax regression over the message's MiniLM vector, trained offline on labelled
messages (`python -m eval.train_head intent|tone`), says what such messages usually carry. It generalises
to unseen phrasing better than a nearest-neighbour vote and ships as a weight file, so nothing is
computed at start-up: one embedding (the intent head shares retrieval's query cache) and a product or two.
The tone head has one hidden ReLU layer of 64 units and reads its own vectors: its file also carries
MiniLM's top three layers, trained with it (`memory.tuned_encoder` runs them).

Each head is a `HeadSpec`: its labels, its weight file and its examples file in `data/`. A weight file
records the embedding model it was trained for, its labels and a digest of its training rows; a file for
another model or other labels is refused (its numbers would mean nothing here), and a test keeps the digest
in step with the examples file.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.config import INTENT_NAMES

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
# one text → its vector (MiniLMEmbedder.embed_query, cached): a numpy array or a plain list of floats
EmbedQuery = Callable[[str], "ArrayLike"]


@dataclass(frozen=True)
class HeadSpec:
    """A head's name and labels; its shipped files are `data/<name>_head.npz` (the weights) and
    `data/<name>_examples.tsv` (its labelled examples). What else it is trained on is eval's business
    (eval/training_sets.py)."""

    name: str
    labels: tuple[str, ...]

    @property
    def weights_file(self) -> Path:
        return DATA_DIR / f"{self.name}_head.npz"

    @property
    def examples_file(self) -> Path:
        return DATA_DIR / f"{self.name}_examples.tsv"


INTENT_HEAD = HeadSpec("intent", tuple(INTENT_NAMES))
TONE_HEAD = HeadSpec("tone", ("conversational", "concern", "elevated", "crisis"))
# Whether a message states a risk in words (a wish or act of dying or self-harm, a means, a bodily emergency,
# danger now) or only implies one or none: what `core.pipeline.tone` asks before the tone head's crisis
# reading may count as evidence where no word list holds the words.
EVIDENCE_HEAD = HeadSpec("evidence", ("unstated", "stated"))
# The tone levels over multilingual-e5-small vectors, for text MiniLM cannot read (`core.pipeline.tone` asks
# when it hears a crisis outside English). It has no examples file of its own: it learns the tone head's
# examples and other-language chat as calm (eval/training_sets.py).
TONE_MULTILINGUAL_HEAD = HeadSpec("tone_multilingual", TONE_HEAD.labels)


class HeadError(ValueError):
    """The weight file cannot be used (missing, unreadable, or trained for another model or labels)."""


class LinearHead:
    """Label probabilities for a text from its embedding. Stateless after loading; thread-safe.

    A softmax regression over the vector, or over one ReLU layer of it when `hidden` (weights, bias) is
    given: the tone head needs the layer to tell "I whipped up some chocolate" from "I took the whole
    packet" (a linear boundary over MiniLM put both near crisis).
    """

    def __init__(
        self,
        embed_query: EmbedQuery,
        weights: Any,
        bias: Any,
        labels: Sequence[str],
        *,
        scale: float = 1.0,
        hidden: tuple[Any, Any] | None = None,
    ) -> None:
        import numpy as np

        self.labels = tuple(labels)
        self._embed_query = embed_query
        self._weights = np.asarray(weights, dtype=np.float32)
        self._bias = np.asarray(bias, dtype=np.float32)
        if self._weights.ndim != 2 or self._weights.shape[1] != len(self.labels):
            raise HeadError(f"weights must be (dim, {len(self.labels)}), got {self._weights.shape}")
        if self._bias.shape != (len(self.labels),):
            raise HeadError(f"bias must have {len(self.labels)} entries, got {self._bias.shape}")
        self._hidden = None
        if hidden is not None:
            layer, offset = (np.asarray(part, dtype=np.float32) for part in hidden)
            if layer.ndim != 2 or layer.shape[1] != self._weights.shape[0] or offset.shape != layer.shape[1:]:
                raise HeadError(f"hidden layer {layer.shape} does not feed weights {self._weights.shape}")
            self._hidden = (layer, offset)
        self._scale = float(scale)

    @property
    def dimensions(self) -> int:
        """The embedding size the head reads."""
        return int((self._hidden[0] if self._hidden else self._weights).shape[0])

    def vote(self, text: str) -> dict[str, float]:
        """Each label's probability for `text` (they add up to 1)."""
        import numpy as np

        vector = np.asarray(self._embed_query(text), dtype=np.float32)
        if vector.shape[0] != self.dimensions:
            raise HeadError(f"embedding has {vector.shape[0]} dims, the head expects {self.dimensions}")
        vector = vector / (float(np.linalg.norm(vector)) or 1.0)  # a cached vector is read-only
        shares = probabilities(vector, self._weights, self._bias, self._scale, self._hidden)
        return {label: float(share) for label, share in zip(self.labels, shares, strict=True)}


def probabilities(
    vectors: Any, weights: Any, bias: Any, scale: float, hidden: tuple[Any, Any] | None = None
) -> Any:
    """Softmax of `scale · (x · weights + bias)`, row-wise (one row or a matrix of rows), where x is the
    vectors or, with a `hidden` (weights, bias) layer, its ReLU of them."""
    import numpy as np

    x = np.atleast_2d(vectors)
    if hidden is not None:
        x = np.maximum(x @ hidden[0] + hidden[1], 0.0)
    logits = scale * (x @ weights + bias)
    logits -= logits.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    out = exp / exp.sum(axis=1, keepdims=True)
    return out[0] if np.ndim(vectors) == 1 else out


def read_rows(file: Path, labels: Sequence[str]) -> list[tuple[str, str]]:
    """(text, label) rows of a `text<TAB>label` file; blank and `#` lines skipped; a label not in `labels`
    is an error naming the file."""
    rows = []
    for line in file.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            text, label = line.split("\t")[:2]
            rows.append((text, label.strip()))
    unknown = {label for _, label in rows} - set(labels)
    if unknown:
        raise ValueError(f"{file} names unknown labels: {sorted(unknown)}")
    return rows


def training_digest(examples: Sequence[tuple[str, str]]) -> str:
    """A short digest of (text, label) rows: the weight file names the data it was trained on."""
    joined = "\n".join(f"{text}\t{label}" for text, label in examples)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16]


def load_head(
    spec: HeadSpec, embed_query: EmbedQuery, model_name: str, path: Path | None = None
) -> LinearHead:
    """The spec's shipped head for `embed_query`, whose model must be the one the weights were trained for."""
    import numpy as np

    path = path or spec.weights_file
    try:
        with np.load(path, allow_pickle=False) as data:
            trained_for = str(data["model"])
            labels = tuple(str(name) for name in data["labels"])
            weights, bias, scale = data["weights"], data["bias"], float(data["scale"])
            hidden = (data["hidden_weights"], data["hidden_bias"]) if "hidden_weights" in data else None
    except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise HeadError(f"cannot read the {spec.name} head {path}: {exc}") from exc
    if trained_for != model_name:
        raise HeadError(f"{path} was trained for {trained_for!r}, not {model_name!r}")
    if labels != spec.labels:
        raise HeadError(f"{path} names labels {list(labels)}, expected {list(spec.labels)}")
    return LinearHead(embed_query, weights, bias, labels, scale=scale, hidden=hidden)


TUNED_PREFIX = "top."  # weight-file keys of the encoder layers tuned with the head (`memory.tuned_encoder`)


def read_tuned_layers(spec: HeadSpec, path: Path | None = None) -> dict[str, Any]:
    """The encoder layers a weight file was trained with, by state-dict key (empty when it reads plain
    MiniLM vectors). A missing or unreadable file gives none: `load_head` then reports it."""
    import numpy as np

    try:
        with np.load(path or spec.weights_file, allow_pickle=False) as data:
            return {key[len(TUNED_PREFIX) :]: data[key] for key in data.files if key.startswith(TUNED_PREFIX)}
    except (OSError, ValueError, zipfile.BadZipFile):
        return {}


def read_head_digest(spec: HeadSpec, path: Path | None = None) -> str:
    """The training-data digest recorded in a weight file."""
    import numpy as np

    with np.load(path or spec.weights_file, allow_pickle=False) as data:
        return str(data["digest"])
