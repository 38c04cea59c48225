"""Building providers from config: availability, the wrapper stack, fallback to the local model."""

from __future__ import annotations

import pytest

from core.config import load_config
from core.errors import ConfigError
from core.providers.pricing import CostLedger, ModelPrice
from core.providers.registry import ProviderFactory, missing_credentials
from core.providers.wrappers import CostTrackingProvider, FallbackProvider, RetryingProvider

ENV = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "ANTHROPIC_API_KEY": "k1", "GEMINI_API_KEY": "k2"}


def tracked(factory: ProviderFactory, name: str) -> CostTrackingProvider:
    """The factory's wrapped provider `name`, whose outer layer is cost tracking."""
    provider = factory.wrapped(name)
    assert isinstance(provider, CostTrackingProvider)
    return provider


def test_only_keyed_remote_providers_are_available_and_main_comes_first() -> None:
    config = load_config()
    assert ProviderFactory(config, {}, CostLedger()).available() == ["local"]
    names = ProviderFactory(config, ENV, CostLedger()).available()
    assert names[0] == "openai" and set(names) == {"openai", "anthropic", "gemini", "local"}


def test_every_kind_builds_its_adapter_inside_retry_and_cost_tracking() -> None:
    factory = ProviderFactory(load_config(), ENV, CostLedger())
    expected = {
        "openai": "OpenAICompatProvider",
        "anthropic": "AnthropicProvider",
        "gemini": "GeminiProvider",
        "local": "LocalModelProvider",
    }
    for name, adapter in expected.items():
        provider = factory.wrapped(name)
        assert isinstance(provider, CostTrackingProvider) and isinstance(provider.inner, RetryingProvider)
        assert type(provider.inner.inner).__name__ == adapter
        assert factory.wrapped(name) is provider  # built once (the local model must load once)


def test_a_remote_main_provider_falls_back_to_the_local_model() -> None:
    factory = ProviderFactory(load_config(), ENV, CostLedger())
    chat = factory.for_chat("anthropic")
    assert isinstance(chat, FallbackProvider)
    assert factory.for_chat("local") is factory.wrapped("local")
    no_fallback = load_config(env={"DAEMON_MODELS__FALLBACK_TO_LOCAL": "false"})
    assert not isinstance(
        ProviderFactory(no_fallback, ENV, CostLedger()).for_chat("anthropic"), FallbackProvider
    )


def test_the_embedded_model_is_free_and_a_configured_price_prices_an_unknown_model() -> None:
    env = {**ENV, "DAEMON_PROVIDERS__OPENAI__MODEL": "my-finetune", "DAEMON_BUDGET__MAX_USD": "1"}
    factory = ProviderFactory(load_config(env=env), env, CostLedger())
    assert tracked(factory, "local").paid is False and tracked(factory, "openai").paid is True
    assert tracked(factory, "openai").prices.get("my-finetune") is None  # unknown: refused under the budget
    priced = {**env, "DAEMON_PROVIDERS__OPENAI__PRICE_PER_MTOK": "[0.5, 1.5]"}
    openai = tracked(ProviderFactory(load_config(env=priced), priced, CostLedger()), "openai")
    assert openai.prices["my-finetune"] == ModelPrice(0.5, 1.5)


def test_a_chosen_provider_without_its_key_names_the_variable_before_any_call() -> None:
    env = {"DAEMON_PROVIDER": "openai"}
    config = load_config(env=env)
    [problem] = missing_credentials(config, env)
    assert "OPENAI_API_KEY is not set" in problem and "DAEMON_PROVIDER" in problem
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        ProviderFactory(config, env, CostLedger()).available()
    fast = load_config(env={"DAEMON_MODELS__FAST": "anthropic"})
    assert ["ANTHROPIC_API_KEY" in p for p in missing_credentials(fast, {})] == [True]
    assert missing_credentials(load_config(env=env), {**env, "OPENAI_BASE_URL": "http://127.0.0.1:9"}) == []
