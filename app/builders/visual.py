"""Visual memory: images over the memory store, CLIP vectors when weights are configured, and what the
`recall_image` tool and the chat's attachments search through."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.config import AppConfig
    from knowledge.service import KnowledgeService
    from memory.service import MemoryService
    from memory.visual.retrieval import ImageRecall
    from memory.visual.store import VisualMemory

log = logging.getLogger("daemon")


def build_visual(
    config: AppConfig,
    memory: MemoryService,
    knowledge: KnowledgeService,
    env: Mapping[str, str],
    *,
    captions: bool = False,
) -> VisualMemory:
    """Visual memory over `memory`: CLIP vectors in a FAISS index of the data dir when `visual.weights` is
    set (else caption/tag search only), tags resolved through the graph, captions from `models.vision` when
    `captions` (adding images) and it is set. The caller closes it."""
    from core.providers.vision_caption import build_captioner
    from knowledge.visual_entities import GraphEntities
    from memory.visual.decode import ImageLimits
    from memory.visual.encoder import ClipEncoder
    from memory.visual.index import FaissImageIndex
    from memory.visual.store import VisualMemory

    cfg = config.visual
    limits = ImageLimits(int(cfg.max_file_mb * 1_000_000), cfg.max_pixels, cfg.max_side)
    encoder = ClipEncoder(cfg.model, cfg.weights, threads=cfg.threads) if cfg.weights else None
    index = FaissImageIndex(config.data_dir / cfg.index_file, encoder.name, encoder.dim) if encoder else None
    return VisualMemory(
        memory,
        limits,
        index=index,
        encoder=encoder,
        captioner=build_captioner(config, env) if captions else None,
        entities=GraphEntities(knowledge.graph),
    )


def build_image_recall(
    config: AppConfig,
    memory: MemoryService,
    knowledge: KnowledgeService,
    env: Mapping[str, str] | None = None,
) -> ImageRecall:
    """What `recall_image` searches through: visual memory's entity, CLIP and caption retrieval. With `env`
    (the app: the GUI adds images through it) `models.vision` captions, when it can."""
    from core.errors import ConfigError
    from memory.visual.retrieval import ImageRecall

    try:
        visual = build_visual(config, memory, knowledge, env or {}, captions=env is not None)
    except ConfigError as error:  # a misconfigured caption model must not stop the chat
        log.warning("images are captioned without a vision model: %s", error)
        visual = build_visual(config, memory, knowledge, {})
    return ImageRecall(visual, min_clip_score=config.visual.min_clip_score)
