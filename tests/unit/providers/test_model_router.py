"""ModelRouter: labels map to providers, unconfigured labels fall back to main."""

from __future__ import annotations

import pytest

from core.errors import ConfigError
from core.providers.fake import EchoProvider
from core.providers.routing import ModelRouter


def test_configured_label_gets_its_own_provider_and_others_fall_back_to_main() -> None:
    main, fast = EchoProvider(name="main"), EchoProvider(name="fast")
    router = ModelRouter({"fast": fast, "main": main})
    assert router.get("fast") is fast
    assert router.get("judge") is main and router.get("vision") is main
    assert router.get() is main and router.main is main
    assert router.is_configured("fast") and not router.is_configured("judge")


def test_labels_lists_main_first() -> None:
    router = ModelRouter({"vision": EchoProvider(), "main": EchoProvider(), "judge": EchoProvider()})
    assert router.labels() == ("main", "vision", "judge")


def test_main_is_required() -> None:
    with pytest.raises(ConfigError, match="main"):
        ModelRouter({"fast": EchoProvider()})
