"""Train MiniLM's top layers together with a head's hidden layer and softmax (the tone head's training).

The lower layers stay frozen, so their output for every example is computed once and the epochs only run
the top layers: about a minute per epoch on two cores for ~10,000 messages. The seed and the batch order
make a retrain reproduce its weights on the same machine and thread count.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TuneSettings:
    """How the top layers and the head are trained (chosen leaving one writer out: docs/tone_eval.md)."""

    # Of MiniLM's six. Leaving one writer out (four writers, 640 crisis rows): two layers caught 530 (501
    # at half the rate), three 547 with fewer false alarms on held-out chat; the frozen encoder's head 474.
    layers: int = 3
    width: int = 64
    epochs: int = 6  # four caught 817 of batch 11's 960 unseen crisis rows, six 835 (same chat false alarms)
    layer_rate: float = 1e-4  # AdamW, linearly down to 0; 5e-5 caught fewer unseen writers' crisis rows
    head_rate: float = 1e-3
    weight_decay: float = 0.01
    batch: int = 32
    seed: int = 0


@dataclass(frozen=True)
class TunedHead:
    """The trained parts, as float32 numpy arrays."""

    top: dict[str, Any]  # the top layers' state dict
    hidden: tuple[Any, Any]  # (hidden size × width, width)
    weights: Any  # width × classes
    bias: Any


def tune(
    embedder: Any, texts: Sequence[str], labels: Sequence[int], classes: int, settings: TuneSettings
) -> TunedHead:
    """Train on (text, class index) pairs; `embedder` is a `MiniLMEmbedder` (its model's lower layers)."""
    import torch

    from memory.tuned_encoder import copy_top_layers

    torch.manual_seed(settings.seed)
    bert, tokenizer, max_length = embedder.transformer()
    states = _frozen_states(bert, tokenizer, texts, settings.layers, max_length)
    top = copy_top_layers(bert, settings.layers)
    hidden = torch.nn.Linear(bert.config.hidden_size, settings.width)
    out = torch.nn.Linear(settings.width, classes)
    optimiser = torch.optim.AdamW(
        [
            {"params": list(top.parameters()), "lr": settings.layer_rate},
            {"params": [*hidden.parameters(), *out.parameters()], "lr": settings.head_rate},
        ],
        weight_decay=settings.weight_decay,
    )
    batches = _length_batches(list(range(len(texts))), states, settings.batch)
    rates = (settings.layer_rate, settings.head_rate)
    total, shuffler = len(batches) * settings.epochs, random.Random(settings.seed)
    for epoch in range(settings.epochs):
        top.train()
        shuffler.shuffle(batches)
        for step, batch in enumerate(batches, start=epoch * len(batches)):
            for group, rate in zip(optimiser.param_groups, rates, strict=True):
                group["lr"] = rate * (1 - step / total)
            logits = out(torch.relu(hidden(_pooled(bert, top, states, batch))))
            loss = torch.nn.functional.cross_entropy(logits, torch.tensor([labels[i] for i in batch]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    top.eval()
    return TunedHead(
        top={key: value.detach().numpy().copy() for key, value in top.state_dict().items()},
        hidden=(hidden.weight.detach().numpy().T.copy(), hidden.bias.detach().numpy().copy()),
        weights=out.weight.detach().numpy().T.copy(),
        bias=out.bias.detach().numpy().copy(),
    )


def _frozen_states(
    bert: Any, tokenizer: Any, texts: Sequence[str], layers: int, max_length: int
) -> list[Any]:
    """Per text, the unpadded hidden states entering the top layers (batched by similar length)."""
    from memory.tuned_encoder import states_below

    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    states: list[Any] = [None] * len(texts)
    for start in range(0, len(order), 64):
        chunk = order[start : start + 64]
        hidden, mask = states_below(bert, tokenizer, [texts[i] for i in chunk], layers, max_length)
        for row, index in enumerate(chunk):
            states[index] = hidden[row, : int(mask[row].sum())].clone()
    return states


def _length_batches(indices: list[int], states: Sequence[Any], size: int) -> list[list[int]]:
    """Batches of examples of similar token length (little padding), in a fixed order before shuffling."""
    ordered = sorted(indices, key=lambda i: (states[i].shape[0], i))
    return [ordered[start : start + size] for start in range(0, len(ordered), size)]


def _pooled(bert: Any, top: Any, states: Sequence[Any], batch: Sequence[int]) -> Any:
    """The batch's unit vectors through the trainable top layers (padding to the batch's longest)."""
    import torch

    from memory.tuned_encoder import pooled

    longest = max(states[i].shape[0] for i in batch)
    padded = torch.zeros(len(batch), longest, states[batch[0]].shape[1])
    mask = torch.zeros(len(batch), longest, dtype=torch.long)
    for row, index in enumerate(batch):
        padded[row, : states[index].shape[0]] = states[index]
        mask[row, : states[index].shape[0]] = 1
    return pooled(bert, top, padded, mask)
