"""Model routing by role: which provider answers the user, does cheap side jobs, judges, or sees images.

`main.py` builds the router from config; everything else asks it for a label. Pure: no config reading.
"""

from __future__ import annotations

from collections.abc import Mapping

from core.errors import ConfigError
from core.providers.base import ChatProvider

KNOWN_LABELS = ("main", "fast", "judge", "vision")
"""Roles the rest of Daemon asks for: the answering model, cheap side jobs (rewrites, summaries),
eval judging, and image understanding."""


class ModelRouter:
    """Maps role labels to providers; a label that is not configured is served by "main"."""

    def __init__(self, providers: Mapping[str, ChatProvider]) -> None:
        if "main" not in providers:
            raise ConfigError("model routing needs a 'main' provider")
        self._providers = dict(providers)

    def get(self, label: str = "main") -> ChatProvider:
        """The provider for `label`, or the main provider when `label` has none of its own."""
        return self._providers.get(label, self._providers["main"])

    def is_configured(self, label: str) -> bool:
        """True when `label` has its own provider rather than falling back to "main"."""
        return label in self._providers

    def labels(self) -> tuple[str, ...]:
        """Configured labels, "main" first, then the others in configuration order."""
        return ("main", *(label for label in self._providers if label != "main"))

    @property
    def main(self) -> ChatProvider:
        """The answering model."""
        return self._providers["main"]
