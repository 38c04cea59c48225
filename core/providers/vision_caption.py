"""Image captions from the provider `models.vision` names (visual memory's `Captioner`).

Chat messages carry text only (core/types.py), so a caption is one direct SDK call with the image inline:
an OpenAI-compatible server (OpenAI, or a local Ollama/LM Studio/vLLM/llama.cpp serving a vision model)
gets an `image_url` data URI, Anthropic a base64 `image` block. Other kinds (gemini, the embedded model) get
no captioner, and images are captioned from their file name and EXIF date instead. Calls are bounded by
`visual.caption_timeout_s`, never retried, and not counted against `budget.max_usd` (a known gap: one short
call per image added).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from core.config import AppConfig, ProviderConfig
from core.errors import ConfigError

PROMPT = (
    "Describe this photo in one or two plain sentences for a personal photo album: who or what is in it, "
    "where, and what is happening. No preamble."
)
MAX_TOKENS = 120


class OpenAICaptioner:
    """Captions through `/v1/chat/completions` with the image as a data URI."""

    def __init__(self, model: str, *, api_key: str | None, base_url: str | None, timeout_s: float) -> None:
        import openai

        self.model = model
        self._client = openai.OpenAI(
            api_key=api_key or "not-needed", base_url=base_url, timeout=timeout_s, max_retries=0
        )

    def caption(self, png: bytes, hint: str) -> str:
        """One caption of the PNG image (`hint`: what the user said of it, may be empty)."""
        url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        text = PROMPT + (f" The user says: {hint}" if hint else "")
        answer = self._client.chat.completions.create(
            model=self.model,
            max_tokens=MAX_TOKENS,
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": text},
                        {"type": "image_url", "image_url": {"url": url}},
                    ],
                }
            ],
        )
        return (answer.choices[0].message.content or "").strip()


class AnthropicCaptioner:
    """Captions through Anthropic's Messages API with the image as a base64 block."""

    def __init__(self, model: str, *, api_key: str | None, base_url: str | None, timeout_s: float) -> None:
        import anthropic

        self.model = model
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0
        )

    def caption(self, png: bytes, hint: str) -> str:
        """One caption of the PNG image (`hint`: what the user said of it, may be empty)."""
        data = base64.b64encode(png).decode("ascii")
        text = PROMPT + (f" The user says: {hint}" if hint else "")
        answer = self._client.messages.create(
            model=self.model,
            max_tokens=MAX_TOKENS,
            messages=[
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": data},
                        },
                        {"type": "text", "text": text},
                    ],
                }
            ],
        )
        return "".join(getattr(block, "text", "") for block in answer.content).strip()


def build_captioner(config: AppConfig, env: Mapping[str, str]) -> Any | None:
    """The captioner for `models.vision`, or None when it is not set. `ConfigError` when the provider it
    names cannot caption (its kind has no image input here, or its key is not set)."""
    name = config.models.vision
    if name is None:
        return None
    provider = config.providers[name]  # load_config checked that it exists
    kinds: dict[str, Any] = {"openai": OpenAICaptioner, "anthropic": AnthropicCaptioner}
    if provider.kind not in kinds:
        raise ConfigError(
            f"models.vision names provider {name!r} of kind {provider.kind!r}, which cannot caption images "
            "here; use a provider of kind openai (or an OpenAI-compatible server) or anthropic"
        )
    key = env.get(provider.api_key_env) if provider.api_key_env else None
    base_url = _base_url(provider, env)
    if provider.kind == "anthropic" and not key:
        raise ConfigError(
            f"models.vision: provider {name!r} needs {provider.api_key_env or 'an API key'} set"
        )
    if provider.kind == "openai" and not key and not base_url:
        raise ConfigError(
            f"models.vision: provider {name!r} needs {provider.api_key_env or 'an API key'} or a base_url"
        )
    timeout = config.visual.caption_timeout_s
    return kinds[provider.kind](provider.model, api_key=key, base_url=base_url, timeout_s=timeout)


def _base_url(provider: ProviderConfig, env: Mapping[str, str]) -> str | None:
    if provider.base_url_env and env.get(provider.base_url_env):
        return env[provider.base_url_env]
    return provider.base_url
