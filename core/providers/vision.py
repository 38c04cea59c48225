"""Which models take images: the `vision` capability a provider declares in its `ProviderProfile`.

A provider whose profile says `vision` gets a user message's images as its own image parts (OpenAI
`image_url` data URLs, Anthropic base64 `image` blocks, Gemini `inline_data`); every other provider gets the
text alone (the caption retrieval put in the prompt). `vision: true|false` on a provider in config.yaml
decides; left out, the model's name does: every Claude 3+ and Gemini model, and the OpenAI-compatible
models known to read images. The embedded model (SmolLM2) never does.
"""

from __future__ import annotations

import re

from core.config import ProviderConfig

# OpenAI's multimodal chat models and the vision models local servers (Ollama, LM Studio, vLLM) serve.
_OPENAI_VISION = re.compile(
    r"gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-4-vision|gpt-5|chatgpt-4o|\bo1(?!-mini)\b|\bo3(?!-mini)\b|\bo4-mini|"
    r"vision|llava|bakllava|moondream|minicpm-v|qwen2(\.5)?-?vl|qwen2(\.5)?-vl|pixtral|gemma-?3|"
    r"llama-?4|granite3\.2-vision|internvl|smolvlm",
    re.IGNORECASE,
)
_ANTHROPIC_TEXT_ONLY = re.compile(r"claude-(instant|2)", re.IGNORECASE)


def model_takes_images(kind: str, model: str) -> bool:
    """Whether `model` of provider `kind` reads images, by its name."""
    if kind == "openai":
        return bool(_OPENAI_VISION.search(model))
    if kind == "anthropic":
        return not _ANTHROPIC_TEXT_ONLY.search(model)
    return kind == "gemini"


def takes_images(cfg: ProviderConfig) -> bool:
    """The provider's `vision` setting, else what its model's name says."""
    return cfg.vision if cfg.vision is not None else model_takes_images(cfg.kind, cfg.model)
