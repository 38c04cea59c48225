"""The main model's composition, shared by start-up and a model picked while Daemon runs (the setup wizard).

The composition root builds a `ModelKit` once (tools, side model, recall, guards, and how to prompt a model);
both `main_model_choices` at start-up and the `use_model` that `model_switcher` returns build choices from it,
so a model switched to at run time is built exactly as the one Daemon started with.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.agent.factory import AgentGuards
    from core.config import AppConfig, ProviderConfig
    from core.orchestrator import ModelChoice, Orchestrator, RecallAnswerer
    from core.prompt.builder import PromptBuilder
    from core.providers.base import ChatProvider
    from core.providers.pricing import CostLedger
    from core.providers.registry import ProviderFactory
    from core.tools.base import Tool
    from core.tools.toolset import Toolset

PromptFor = Callable[["AppConfig", str], "PromptBuilder"]  # (config, main model's name) -> its prompt builder
# (name, its provider config, the keys just saved) -> that model answers from the next turn on
UseModel = Callable[[str, "ProviderConfig", Mapping[str, str]], None]


@dataclass(frozen=True)
class ModelKit:
    """What every model choice is built from besides its provider: the tools (the store tools for capable
    models only), the side model, the embedded model's recall, the tool guards, and how the default model is
    prompted (None: the orchestrator's own prompt builder)."""

    general: Toolset
    stores: tuple[Tool, ...]
    side: ChatProvider | None
    recall: RecallAnswerer | None
    guards: AgentGuards
    prompt_for: PromptFor | None = None


def main_model_choices(
    config: AppConfig, factory: ProviderFactory, names: Sequence[str], kit: ModelKit
) -> list[ModelChoice]:
    """The model choices, the first (`names[0]`, the default) in the configured generation mode and with
    the prompt budget its context window allows. Start-up and a model picked at run time both use this."""
    from core.generation.setup import model_choices

    choices = model_choices(config, factory, names, kit.general, kit.stores, kit.side, kit.recall, kit.guards)
    if kit.prompt_for is None:
        return choices
    return [replace(choices[0], prompt=kit.prompt_for(config, names[0])), *choices[1:]]


def model_switcher(
    config: AppConfig, env: Mapping[str, str], ledger: CostLedger, orchestrator: Orchestrator, kit: ModelKit
) -> UseModel:
    """`use_model(name, provider, keys)`: build provider `name` (its config; `keys` just saved, over the
    environment) as start-up would as the main model, and make it the orchestrator's default from the
    next turn on. Raises (a `DaemonError` naming the problem) and changes nothing when it cannot."""

    def use_model(name: str, provider: ProviderConfig, keys: Mapping[str, str]) -> None:
        from core.providers.registry import ProviderFactory

        providers = {**config.providers, name: provider}
        models = config.models.model_copy(update={"main": name})
        chosen = config.model_copy(update={"providers": providers, "models": models})
        factory = ProviderFactory(chosen, {**env, **keys}, ledger)
        names = [name, *(other for other in factory.available() if other != name)]
        orchestrator.use_model(main_model_choices(chosen, factory, names, kit)[0])

    return use_model
