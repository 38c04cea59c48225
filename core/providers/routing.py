"""Model roles: which configured provider does the side jobs and which one judges.

`fast` serves side jobs (query rewrite, summaries, fact extraction, planning); `judge` serves the generation
modes' judge (best-of, duel, ensemble) and falls back to `fast`. A role with no provider of its own is
served by the main model. Pure: it reads the validated `models` section, nothing else.
"""

from __future__ import annotations

from typing import Literal

from core.config import ModelsConfig

Role = Literal["fast", "judge"]
_FALLBACKS: dict[str, tuple[str, ...]] = {"fast": ("fast",), "judge": ("judge", "fast")}


def provider_for_role(models: ModelsConfig, role: Role, main: str) -> str:
    """The provider name serving `role`: its own, else the role it falls back to, else `main`."""
    for label in _FALLBACKS[role]:
        name: str | None = getattr(models, label)
        if name is not None:
            return name
    return main
