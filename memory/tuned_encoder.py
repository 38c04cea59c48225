"""MiniLM with its top layers tuned for one head: the tone head's encoder.

A head over frozen MiniLM vectors only sees what retrieval's embedding kept, and retrieval's embedding
keeps topic, not risk: "can you help me write a note so my sister gets my car after tonight" sits next to
ordinary notes about cars. The tone head's weight file therefore carries its own copy of MiniLM's top
transformer layers (three of six), trained with the head (`python -m eval.train_head tone`); the lower layers,
the tokenizer and the loaded model are shared with retrieval's `MiniLMEmbedder`, so the cost is a second
forward pass over a message the analyzer reads anyway (about 9 ms on one thread), not a second model.

`load_head_for` is the one way to load a head: with the plain embedder when its file has no tuned layers
(the intent head), with a `TunedTopEncoder` when it has. The weight file names the encoder it was trained
for (`tuned_name`), so a head is never read over vectors it was not trained on.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from core.pipeline.linear_head import HeadError, HeadSpec, LinearHead, load_head, read_tuned_layers
from memory.embeddings import MINILM_DIM, MINILM_NAME, QueryCache

if TYPE_CHECKING:
    from pathlib import Path

    import numpy as np

    from memory.embeddings import Embedder, MiniLMEmbedder


def tuned_name(layers: int) -> str:
    """The encoder name a weight file with `layers` tuned top layers records."""
    return f"{MINILM_NAME}+tuned-top-{layers}"


def load_head_for(spec: HeadSpec, embedder: Embedder, path: Path | None = None) -> LinearHead:
    """The spec's shipped head over the vectors it was trained on (raises `HeadError` like `load_head`)."""
    tuned = read_tuned_layers(spec, path)
    if not tuned:
        return load_head(spec, embedder.embed_query, embedder.name, path)
    if embedder.name != MINILM_NAME:  # tuned layers replace MiniLM's own: no other model has them
        raise HeadError(
            f"the {spec.name} head tunes {MINILM_NAME}'s top layers; the embedder is {embedder.name!r}"
        )
    encoder = TunedTopEncoder(cast("MiniLMEmbedder", embedder), tuned)
    return load_head(spec, encoder.embed_query, encoder.name, path)


def top_layer_count(state: Mapping[str, Any]) -> int:
    """How many layers a state dict of tuned top layers holds (its keys start with the layer's index)."""
    return len({key.split(".", 1)[0] for key in state})


def copy_top_layers(bert: Any, layers: int) -> Any:
    """A trainable copy of the model's top `layers` transformer layers (a torch `ModuleList`)."""
    import copy

    import torch

    return torch.nn.ModuleList(copy.deepcopy(list(bert.encoder.layer[-layers:])))


def states_below(
    bert: Any, tokenizer: Any, texts: Sequence[str], layers: int, max_length: int
) -> tuple[Any, Any]:
    """The hidden states that enter the top `layers` layers, and the attention mask, for a batch of texts
    (the model's embeddings and lower layers only: the top ones are not run)."""
    import torch

    encoded = tokenizer(
        list(texts), padding=True, truncation=True, max_length=max_length, return_tensors="pt"
    )
    with torch.no_grad():
        states = bert.embeddings(input_ids=encoded["input_ids"], token_type_ids=encoded["token_type_ids"])
        states = _through(bert, bert.encoder.layer[:-layers], states, encoded["attention_mask"])
    return states, encoded["attention_mask"]


def pooled(bert: Any, top: Any, states: Any, mask: Any) -> Any:
    """Unit vectors: `states` through the `top` layers, mean-pooled over real tokens (as MiniLM pools)."""
    import torch

    states = _through(bert, top, states, mask)
    weights = mask.unsqueeze(-1).to(states.dtype)
    mean = (states * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)
    return torch.nn.functional.normalize(mean, dim=1)


def _through(bert: Any, layers: Any, states: Any, mask: Any) -> Any:
    """`states` through transformer `layers`, padding masked out as the model itself masks it."""
    from transformers.masking_utils import create_bidirectional_mask

    attention = create_bidirectional_mask(config=bert.config, inputs_embeds=states, attention_mask=mask)
    for layer in layers:
        states = layer(states, attention)
    return states


class TunedTopEncoder:
    """Unit vectors from MiniLM whose top layers are replaced by tuned ones. Thread-safe, cached by text."""

    def __init__(
        self, embedder: MiniLMEmbedder, state: Mapping[str, np.ndarray], *, cache_size: int = 512
    ) -> None:
        self._embedder = embedder
        self._state = dict(state)
        self.layers = top_layer_count(self._state)
        self.name = tuned_name(self.layers)
        self._top: Any = None
        self._lock = threading.Lock()
        self._cache = QueryCache(cache_size)

    def _loaded(self) -> tuple[Any, Any, Any, int]:
        import torch

        bert, tokenizer, max_length = self._embedder.transformer()
        with self._lock:
            if self._top is None:
                top = copy_top_layers(bert, self.layers)
                weights = {
                    key: torch.from_numpy(value.astype("float32")) for key, value in self._state.items()
                }
                # strict: a file for another architecture raises here (the detector logs it, goes on alone)
                top.load_state_dict(weights)
                self._top = top.eval()
        return bert, tokenizer, self._top, max_length

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(n, 384) float32 unit vectors."""
        import numpy as np
        import torch

        if not texts:
            return np.zeros((0, MINILM_DIM), dtype=np.float32)
        bert, tokenizer, top, max_length = self._loaded()
        states, mask = states_below(bert, tokenizer, texts, self.layers, max_length)
        with torch.no_grad():
            return pooled(bert, top, states, mask).numpy().astype(np.float32, copy=False)

    def embed_query(self, text: str) -> np.ndarray:
        """One vector, cached by text (the analyzer reads a message more than once)."""
        return self._cache.vector(text, self.embed)
