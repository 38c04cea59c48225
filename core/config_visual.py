"""Configuration of visual memory (`visual:` in config.yaml; the values live only there, no defaults here).

Images the user adds (`python main.py image add PATH`) are decoded within these limits, captioned and
tagged, and stored twice: their caption and tags in the `visual_memories` collection, their OpenCLIP
vector in a FAISS index in the data folder. `weights` says where OpenCLIP's ViT-B/32 weights come from; with
none, no image vectors are computed and images are found by caption and tag only.
"""

from __future__ import annotations

from pydantic import Field

from core.config_memory import _Frozen


class VisualConfig(_Frozen):
    """Visual memory: the image encoder's weights and threads, decode limits and the index file."""

    # A state-dict file (path) or an open_clip pretrained tag such as `laion2b_s34b_b79k` (read from the
    # Hugging Face cache: Daemon runs with HF_HUB_OFFLINE=1); null: no image vectors, caption/tag search only.
    weights: str | None
    model: str  # the open_clip architecture the weights belong to (ViT-B-32: 512-d vectors)
    threads: int = Field(ge=1, le=64)  # torch intra-op threads while encoding (process-wide in torch)
    max_file_mb: float = Field(gt=0)  # a bigger file is refused before it is read
    max_pixels: int = Field(ge=1)  # width x height beyond this is refused before decoding (bomb guard)
    max_side: int = Field(ge=16)  # either side beyond this is refused before decoding
    index_file: str = Field(min_length=1)  # the FAISS index of image vectors, inside the data folder
    caption_timeout_s: float = Field(gt=0)  # a vision model's caption; on timeout the fallback caption
    min_clip_score: float = Field(ge=-1, le=1)  # CLIP text-image cosine below this is no match
    # Images sent to a vision model with a turn (attached ones, then recalled ones; memory/visual/attach.py)
    attach_max_images: int = Field(ge=0, le=16)  # at most this many per turn (0: never send image bytes)
    attach_max_side: int = Field(ge=64, le=4096)  # each downscaled so its longest side is at most this
    attach_max_kb: int = Field(ge=16, le=20_000)  # and re-encoded smaller until its JPEG fits this
