"""Counting tokens the way the answering model will: its real tokenizer when one is at hand, else an estimate.

The estimate is calibrated per model family (characters per token measured on English prose and code) and
rounds up with a margin, so a budget met by the estimate is met by the real tokenizer too. The embedded
model's tokenizer is exact once it is cached as `tokenizer.json` (the local provider writes it on its first
load; parsing the GGUF file each time would take seconds).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from core.types import Message

# Characters per token, measured: SmolLM2 (the embedded model) 3.36 on this project's README (22,986
# characters, 6,846 tokens); OpenAI's o200k and Gemini ~4; Claude ~3.5. The margin covers text denser
# than prose (code, numbers, non-English).
CHARS_PER_TOKEN: Mapping[str, float] = MappingProxyType(
    {"local": 3.3, "openai": 4.0, "anthropic": 3.5, "gemini": 4.0, "echo": 4.0}
)
DEFAULT_CHARS_PER_TOKEN = 3.3
MESSAGE_OVERHEAD = 4  # role and separators per chat message


class TokenCounter(Protocol):
    # Read-only: the frozen EstimateCounter cannot offer a settable name, and no caller sets one.
    @property
    def name(self) -> str: ...

    def count(self, text: str) -> int: ...


@dataclass(frozen=True)
class EstimateCounter:
    """`ceil(chars / chars_per_token * (1 + margin))`: never below the real count on ordinary text."""

    chars_per_token: float = DEFAULT_CHARS_PER_TOKEN
    margin: float = 0.1
    name: str = "estimate"

    def count(self, text: str) -> int:
        if not text:
            return 0
        return math.ceil(len(text) / self.chars_per_token * (1.0 + self.margin))

    def chars_for(self, tokens: int) -> int:
        """How many characters fit in `tokens` by this estimate (the inverse of `count`, rounded down)."""
        return max(int(tokens * self.chars_per_token / (1.0 + self.margin)), 0)


class TokenizerCounter:
    """Exact counts from a Hugging Face `tokenizer.json` (the `tokenizers` package loads it in ms)."""

    def __init__(self, path: Path, name: str = "tokenizer") -> None:
        from tokenizers import Tokenizer

        self._tokenizer: Any = Tokenizer.from_file(str(path))
        self.name = name

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


def counter_for(family: str, tokenizer_file: Path | None = None) -> TokenCounter:
    """The best counter for a provider kind: the cached real tokenizer when present, else the estimate."""
    if tokenizer_file is not None and tokenizer_file.is_file():
        try:
            return TokenizerCounter(tokenizer_file, name=f"{family} tokenizer")
        except Exception:  # noqa: BLE001 - a damaged cache only costs exactness
            pass
    ratio = CHARS_PER_TOKEN.get(family, DEFAULT_CHARS_PER_TOKEN)
    return EstimateCounter(ratio, name=f"{family} estimate ({ratio} chars/token + 10 %)")


def count_messages(counter: TokenCounter, messages: Sequence[Message]) -> int:
    """Tokens of chat messages: their text and tool calls, plus the per-message overhead."""
    total = 0
    for message in messages:
        calls = [f"{c.name} {json.dumps(c.arguments, ensure_ascii=False)}" for c in message.tool_calls]
        total += counter.count(" ".join([message.content, *calls]).strip()) + MESSAGE_OVERHEAD
    return total
