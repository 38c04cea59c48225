"""Model roles: the judge falls back to the fast model, then to main; the embedded model serves no role."""

from __future__ import annotations

from core.config import load_config
from core.providers.pricing import CostLedger
from core.providers.registry import ProviderFactory
from core.providers.routing import provider_for_role

ENV = {"ANTHROPIC_API_KEY": "k1", "GEMINI_API_KEY": "k2"}


def test_a_role_uses_its_own_provider_then_its_fallback_role_then_main() -> None:
    models = load_config().models
    assert provider_for_role(models, "judge", "openai") == "openai"
    fast_only = load_config(env={"DAEMON_MODELS__FAST": "gemini"}).models
    assert provider_for_role(fast_only, "judge", "openai") == "gemini"  # the judge falls back to fast
    assert provider_for_role(fast_only, "fast", "openai") == "gemini"
    both = load_config(env={"DAEMON_MODELS__FAST": "gemini", "DAEMON_MODELS__JUDGE": "anthropic"}).models
    assert provider_for_role(both, "judge", "openai") == "anthropic"


def test_the_embedded_model_serves_no_role() -> None:
    config = load_config(env={"DAEMON_MODELS__JUDGE": "anthropic"})
    factory = ProviderFactory(config, ENV, CostLedger())
    assert factory.for_role("fast", "local") is None  # main is the embedded model: no side jobs
    assert factory.for_role("judge", "local") is factory.wrapped("anthropic")
