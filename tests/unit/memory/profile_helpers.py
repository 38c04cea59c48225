"""The retrieval profiles of the committed config.yaml, for tests: the values live only there."""

from __future__ import annotations

from functools import cache

from core.config import load_config
from memory.profiles import IntentProfiles, profiles_from_config


@cache  # profiles are frozen, so every test may share one load of the file
def committed_profiles() -> IntentProfiles:
    """The nine profiles as a fresh install runs them (no user file, no environment)."""
    return profiles_from_config(load_config().memory)
