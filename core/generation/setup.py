"""Choosing the generation mode from the config: which wrappers go around the main model's agent."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from itertools import cycle, islice

from core.agent.factory import AgentGuards, build_agent
from core.config import AppConfig, GenerationConfig
from core.generation.ensemble import Ensemble
from core.generation.panel import BestOfN, Duel
from core.generation.planned import PlannedGeneration
from core.generation.uncertainty import UncertaintyRetry
from core.orchestrator import Agent, ModelChoice, RecallAnswerer
from core.providers.base import ChatProvider
from core.providers.registry import ProviderFactory
from core.tools.base import Tool
from core.tools.toolset import Toolset

logger = logging.getLogger(__name__)
# The embedded model wanders at the configured 0.7 ("Mmmmmm…", a god, condolences); at 0.2 it answers
# "hello there" and "What is the capital of France?" plainly (docs/local_model_measurements.md).
EMBEDDED_TEMPERATURE = 0.2
EMBEDDED_LABEL = "SmolLM2 135M, built in"  # the embedded model as people see it (its config key is "local")


def generation_agent(
    agent_at: Callable[[float | None], Agent],
    others: Mapping[str, Agent],
    cfg: GenerationConfig,
    *,
    judge: ChatProvider | None,
    planner: ChatProvider | None = None,
    memory_tool: str | None = None,
) -> Agent:
    """The main model's agent wrapped per `cfg`. `agent_at(temperature)` builds the main agent (None: the
    configured temperature); `others` are the other configured models' agents (duel, ensemble)."""
    agent = _panel(agent_at, others, cfg, judge)
    if cfg.plan and planner is not None:
        reviewer = judge if cfg.review else None
        agent = PlannedGeneration(agent, planner, reviewer, plan_timeout_s=cfg.judge_timeout_s)
    if cfg.uncertainty_retry and memory_tool is not None:
        agent = UncertaintyRetry(agent, tool_name=memory_tool)
    return agent


def _panel(
    agent_at: Callable[[float | None], Agent],
    others: Mapping[str, Agent],
    cfg: GenerationConfig,
    judge: ChatProvider | None,
) -> Agent:
    if cfg.mode == "stream":
        return agent_at(None)
    if judge is None:
        logger.warning("generation mode %s needs a judge model (models.judge/fast); streaming", cfg.mode)
        return agent_at(None)
    timeout = cfg.judge_timeout_s
    if cfg.mode == "best_of":
        temperatures = list(islice(cycle(cfg.temperatures or (None,)), cfg.n))
        return BestOfN([agent_at(t) for t in temperatures], judge, cfg.n, timeout_s=timeout)
    if not others:
        logger.warning("generation mode %s needs a second configured model; streaming", cfg.mode)
        return agent_at(None)
    if cfg.mode == "duel":
        name, second = next(iter(others.items()))
        return Duel(agent_at(None), second, judge, names=("main", name), timeout_s=timeout)
    return Ensemble([agent_at(None), *others.values()], judge, names=["main", *others], timeout_s=timeout)


TURN_MODES = ("stream", "best_of", "duel")  # what one turn may ask for (the GUI's mode selector)


def turn_modes(
    agent_at: Callable[[float | None], Agent],
    others: Mapping[str, Agent],
    cfg: GenerationConfig,
    judge: ChatProvider | None,
) -> tuple[dict[str, Agent], dict[str, str]]:
    """The agents one turn may ask for instead of the configured one (each mode bare: no planning or
    memory retry around it, so `Done.extra["mode"]` names it), and the modes it may not, with the reason."""
    modes: dict[str, Agent] = {"stream": agent_at(None)}
    unavailable: dict[str, str] = {}
    for mode in TURN_MODES[1:]:
        if judge is None:
            unavailable[mode] = "needs a second, capable model to judge the answers (connect one in Settings)"
        elif mode == "duel" and not others:
            unavailable[mode] = "needs a second model to answer beside this one (connect one in Settings)"
        else:
            modes[mode] = _panel(agent_at, others, cfg.model_copy(update={"mode": mode}), judge)
    return modes, unavailable


def model_choices(
    config: AppConfig,
    factory: ProviderFactory,
    names: Sequence[str],
    toolset: Toolset,
    memory_tools: Sequence[Tool] = (),
    side: ChatProvider | None = None,
    recall: RecallAnswerer | None = None,
    guards: AgentGuards | None = None,
) -> list[ModelChoice]:
    """One choice per available model; the first (the default) wrapped in the configured generation mode.
    Remote models get the tools and the memory tools. The embedded one gets none and `recall` instead: it
    answers questions about the user's past from memory and tool questions with the tools directly. `guards`
    (the tool gate's judge, per-tool budgets, the tool groups) apply to every agent built here."""

    def agent_for(name: str, temperature: float | None = None) -> Agent:
        embedded = config.providers[name].kind == "local"
        # The embedded model calls whatever it is offered and prints the call as its answer: it gets no
        # tools; `recall` answers time, unit and arithmetic questions with the tools directly.
        tools = Toolset() if embedded else toolset.merged(memory_tools)
        provider = factory.for_chat(name)
        if embedded and temperature is None:
            temperature = EMBEDDED_TEMPERATURE
        return build_agent(
            provider, tools, config.agent, embedded=embedded, temperature=temperature, guards=guards
        )

    plain = {name: agent_for(name) for name in names}
    main_name, others = names[0], {name: plain[name] for name in names[1:]}
    embedded_main = config.providers[main_name].kind == "local"
    judge = factory.for_role("judge", main_name)
    main_agent = generation_agent(
        lambda temperature: agent_for(main_name, temperature),
        others,
        config.generation,
        judge=judge,
        planner=side,
        memory_tool="search_memory" if memory_tools and not embedded_main else None,
    )

    def choice(name: str, agent: Agent) -> ModelChoice:
        def at(temperature: float | None) -> Agent:
            return plain[name] if temperature is None else agent_for(name, temperature)

        rivals = {other: plain[other] for other in names if other != name}
        modes, unavailable = turn_modes(at, rivals, config.generation, judge)
        recall_here = recall if config.providers[name].kind == "local" else None
        provider = config.providers[name]
        described = EMBEDDED_LABEL if provider.kind == "local" else f"{provider.model} via {name}"
        return ModelChoice(name, agent, described, recall_here, modes=modes, unavailable=unavailable)

    return [choice(main_name, main_agent)] + [choice(name, agent) for name, agent in others.items()]
