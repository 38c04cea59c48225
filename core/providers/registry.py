"""Build providers from config: one table from `kind` to adapter factory, then the standard wrappers.

Every provider the app uses is `CostTracking(Retrying(adapter))`; a remote main provider additionally falls
back to the embedded local model when configured to. Factories import SDKs lazily (inside the adapters).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from core.config import AppConfig, ProviderConfig, resolve_main_provider
from core.errors import ConfigError
from core.providers.base import ChatProvider
from core.providers.pricing import CostLedger, ModelPrice, default_prices
from core.providers.routing import Role, provider_for_role
from core.providers.vision import takes_images

if TYPE_CHECKING:
    from core.providers.local import LocalModelProvider

REMOTE_KINDS = ("openai", "anthropic", "gemini")
AdapterFactory = Callable[[str, ProviderConfig, Mapping[str, str], float], ChatProvider]


def _base_url(cfg: ProviderConfig, env: Mapping[str, str]) -> str | None:
    return cfg.base_url or (env.get(cfg.base_url_env) if cfg.base_url_env else None) or None


def _api_key(cfg: ProviderConfig, env: Mapping[str, str]) -> str | None:
    key = env.get(cfg.api_key_env) if cfg.api_key_env else None
    if not key and cfg.kind == "gemini":
        key = env.get("GOOGLE_API_KEY")
    return key or None


def _remote(module: str, class_name: str, *passed: str) -> AdapterFactory:
    """A factory for an SDK-backed adapter; the module (and so the SDK) is imported only when built.

    `passed` names further `ProviderConfig` fields handed to the adapter as keyword arguments.
    """

    def build(name: str, cfg: ProviderConfig, env: Mapping[str, str], timeout: float) -> ChatProvider:
        adapter = getattr(importlib.import_module(module), class_name)
        return adapter(
            model=cfg.model,
            api_key=_api_key(cfg, env),
            base_url=_base_url(cfg, env),
            timeout=timeout,
            context_window=cfg.context_window,
            name=name,
            key_env=cfg.api_key_env,
            vision=takes_images(cfg),
            **{field: getattr(cfg, field) for field in passed},
        )

    return build


def _local(name: str, cfg: ProviderConfig, env: Mapping[str, str], timeout: float) -> ChatProvider:
    from core.providers.converted_model import cache_root
    from core.providers.local import LocalModelProvider

    return LocalModelProvider(
        model_path=cfg.model_path,
        backend=cfg.backend,
        context_window=cfg.context_window,
        n_threads=cfg.threads or None,
        max_reply_tokens=cfg.max_reply_tokens,
        converted_root=cache_root(env),
    )


def _echo(name: str, cfg: ProviderConfig, env: Mapping[str, str], timeout: float) -> ChatProvider:
    from core.providers.fake import EchoProvider

    return EchoProvider(name=name, model=cfg.model)


FREE_KINDS = frozenset({"local", "echo"})  # run on this machine: no price, nothing to count

ADAPTERS: Mapping[str, AdapterFactory] = {
    "openai": _remote("core.providers.openai_compat", "OpenAICompatProvider", "dialect"),
    "anthropic": _remote("core.providers.anthropic_provider", "AnthropicProvider"),
    "gemini": _remote("core.providers.gemini_provider", "GeminiProvider"),
    "local": _local,
    "echo": _echo,
}


def is_available(cfg: ProviderConfig, env: Mapping[str, str]) -> bool:
    """Remote providers need a key or a base URL; local and echo always work."""
    if cfg.kind not in REMOTE_KINDS:
        return True
    return bool(_api_key(cfg, env) or _base_url(cfg, env))


def missing_credentials(config: AppConfig, env: Mapping[str, str]) -> list[str]:
    """One sentence per model role whose chosen provider cannot be called for want of its key (or base
    URL), naming the variable to set. Empty when every chosen provider is usable."""
    chosen = {"main": resolve_main_provider(config, env)}
    chosen.update({role: getattr(config.models, role) for role in ("fast", "judge")})
    problems: list[str] = []
    for role, name in chosen.items():
        cfg = config.providers.get(name) if name else None
        if cfg is None or is_available(cfg, env):
            continue
        need = cfg.api_key_env or "an API key variable (`api_key_env`)"
        alternative = f" (or {cfg.base_url_env} for a compatible server)" if cfg.base_url_env else ""
        picked = " by DAEMON_PROVIDER" if role == "main" and env.get("DAEMON_PROVIDER") else ""
        problems.append(
            f"the {role} model is provider {name!r}{picked}, but {need} is not set: set it{alternative}, "
            "or choose another provider"
        )
    return problems


class ProviderFactory:
    """Builds each configured provider once (the local model must load only once per process)."""

    def __init__(self, config: AppConfig, env: Mapping[str, str], ledger: CostLedger) -> None:
        self._config = config
        self._env = env
        self._ledger = ledger
        self._built: dict[str, ChatProvider] = {}

    def available(self) -> list[str]:
        """Configured providers that can answer now, the main one first. A provider chosen for a role
        without its key is a `ConfigError` naming the variable, before any call is tried."""
        problems = missing_credentials(self._config, self._env)
        if problems:
            raise ConfigError("; ".join(problems))
        main = resolve_main_provider(self._config, self._env)
        names = [n for n, cfg in self._config.providers.items() if is_available(cfg, self._env)]
        return [main] + [n for n in names if n != main]

    def wrapped(self, name: str) -> ChatProvider:
        """`CostTracking(Retrying(adapter))` for one configured provider."""
        if name not in self._built:
            from core.providers.wrappers import CostTrackingProvider, RetryingProvider

            cfg = self._config.providers[name]
            retry = self._config.retry
            adapter = ADAPTERS[cfg.kind](name, cfg, self._env, retry.timeout_s)
            if hasattr(adapter, "tokenizer_cache"):  # the embedded model: let prompt assembly count exactly
                adapter.tokenizer_cache = self._config.data_dir / "cache" / f"{name}-tokenizer.json"
            retrying = RetryingProvider(adapter, retry.max_attempts, retry.base_delay_s, retry.max_delay_s)
            prices = default_prices()
            if cfg.price_per_mtok is not None:  # the user's price wins over the built-in table
                prices[cfg.model] = ModelPrice(*cfg.price_per_mtok)
            paid = cfg.kind not in FREE_KINDS
            self._built[name] = CostTrackingProvider(retrying, prices, self._ledger, paid=paid)
        return self._built[name]

    def local_model(self) -> LocalModelProvider | None:
        """The embedded model's provider itself (the one answering chat when it is configured), for what
        only it offers: scoring how natural a text is. None when no local provider is configured."""
        from core.providers.local import LocalModelProvider

        name = next((n for n, cfg in self._config.providers.items() if cfg.kind == "local"), None)
        if name is None:
            return None
        provider: object = self.wrapped(name)
        while not isinstance(provider, LocalModelProvider) and hasattr(provider, "inner"):
            provider = provider.inner  # the cost and retry wrappers around the adapter
        return provider if isinstance(provider, LocalModelProvider) else None

    def capable(self, name: str) -> ChatProvider | None:
        """`name`'s provider for side jobs (judging, rewriting, summarising), or None for the embedded
        model, which is too small to do them reliably (callers fall back to heuristics)."""
        return None if self._config.providers[name].kind == "local" else self.wrapped(name)

    def for_chat(self, name: str) -> ChatProvider:
        """The provider for answering: a remote one falls back to the local model when configured."""
        provider = self.wrapped(name)
        local = self._config.providers.get("local")
        fallback = self._config.models.fallback_to_local and local is not None and name != "local"
        if not fallback or self._config.providers[name].kind not in REMOTE_KINDS:
            return provider
        from core.providers.wrappers import FallbackProvider

        return FallbackProvider([provider, self.wrapped("local")])

    def for_role(self, role: Role, main: str) -> ChatProvider | None:
        """The capable provider serving `role` (core/providers/routing.py), or None when that is the
        embedded model (callers then do without: heuristics, or plain streaming instead of judging)."""
        return self.capable(provider_for_role(self._config.models, role, main))
