"""Image and text encoders for visual memory: OpenCLIP ViT-B/32 (lazily loaded) and a protocol for others.

No CLIP weights ship with Daemon (none are on PyPI): `pretrained` is a state-dict file, an open_clip tag
found in the Hugging Face cache, or None for a random initialisation. Random weights give vectors that
are stable (seeded, so two processes agree) but mean nothing: such an encoder reports `ranks = False`
and retrieval then never orders images by CLIP similarity. Tests use it to exercise the real model.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard

from core.errors import ConfigError
from core.torch_compat import ensure_torchvision_importable

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

CLIP_DIM = 512  # ViT-B/32's embedding width
_RANDOM_SEED = 0  # random weights are the same in every process, so stored vectors stay comparable


class ImageEncoder(Protocol):
    """Images and texts into one L2-normalised float32 space of `dim` dimensions.

    `name` identifies the vector space (model and weights): vectors of two names are never mixed.
    `ranks` says whether similarities mean anything (False for random weights)."""

    name: str
    dim: int
    ranks: bool

    def encode_images(self, images: Sequence[Any]) -> np.ndarray: ...

    def encode_text(self, text: str) -> np.ndarray: ...


def weights_id(pretrained: str | None) -> str:
    """A short name for the weights: the tag, the file's name and size, or `random`."""
    if pretrained is None:
        return "random"
    path = Path(pretrained).expanduser()
    if path.is_file():
        stamp = hashlib.sha256(f"{path.resolve()}:{path.stat().st_size}".encode()).hexdigest()[:8]
        return f"{path.name}-{stamp}"
    return pretrained


class ClipEncoder:
    """OpenCLIP (ViT-B-32 by default) on the CPU, loaded on first use under a lock, in inference mode."""

    def __init__(
        self, model: str = "ViT-B-32", pretrained: str | None = None, *, threads: int = 1, batch: int = 16
    ) -> None:
        """`threads` bounds torch's intra-op threads when the model loads (a process-wide torch setting)."""
        self._model_name = model
        self._pretrained = str(Path(pretrained).expanduser()) if _is_file(pretrained) else pretrained
        self._threads = threads
        self._batch = max(1, batch)
        self._lock = threading.Lock()
        self._parts: tuple[Any, Any, Any] | None = None  # model, preprocess, tokenizer
        self.name = f"openclip:{model}:{weights_id(pretrained)}"
        self.dim = CLIP_DIM
        self.ranks = pretrained is not None

    def _loaded(self) -> tuple[Any, Any, Any]:
        with self._lock:
            if self._parts is None:
                self._parts = self._load()
            return self._parts

    def _load(self) -> tuple[Any, Any, Any]:
        ensure_torchvision_importable()  # before open_clip imports torchvision: see core/torch_compat.py
        import open_clip
        import torch

        torch.set_num_threads(self._threads)
        try:
            with torch.random.fork_rng():  # seeded random init without touching the caller's RNG
                torch.manual_seed(_RANDOM_SEED)
                model, _, preprocess = open_clip.create_model_and_transforms(
                    self._model_name, pretrained=self._pretrained, device="cpu"
                )
        except (RuntimeError, OSError, ValueError) as error:
            raise ConfigError(
                f"cannot load OpenCLIP {self._model_name} weights {self._pretrained!r}: {error} "
                "(visual.weights: a state-dict file or a pretrained tag in the Hugging Face cache)"
            ) from None
        model.eval()
        return model, preprocess, open_clip.get_tokenizer(self._model_name)

    def encode_images(self, images: Sequence[Any]) -> np.ndarray:
        """(n, 512) float32, L2-normalised; `images` are PIL images (any mode: converted to RGB)."""
        import numpy as np
        import torch

        if not images:
            return np.zeros((0, self.dim), dtype=np.float32)
        model, preprocess, _ = self._loaded()
        out = []
        with torch.inference_mode():
            for start in range(0, len(images), self._batch):
                chunk = images[start : start + self._batch]
                batch = torch.stack([preprocess(image.convert("RGB")) for image in chunk])
                out.append(_normalised(model.encode_image(batch)))
        return np.concatenate(out).astype(np.float32, copy=False)

    def encode_text(self, text: str) -> np.ndarray:
        """(512,) float32, L2-normalised, in the images' space."""
        import torch

        model, _, tokenizer = self._loaded()
        with torch.inference_mode():
            return _normalised(model.encode_text(tokenizer([text])))[0]


def _normalised(tensor: Any) -> np.ndarray:
    import numpy as np

    array = tensor.float().numpy()
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return (array / np.maximum(norms, 1e-12)).astype(np.float32)


def _is_file(pretrained: str | None) -> TypeGuard[str]:
    return pretrained is not None and Path(pretrained).expanduser().is_file()
