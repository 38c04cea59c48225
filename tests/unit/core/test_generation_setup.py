"""Which wrappers the configuration puts around the main agent, and the modes one turn may ask for."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

from core.config import AppConfig, GenerationConfig, ModelsConfig, ProviderConfig, load_config
from core.events import Done, RunEvent
from core.generation import BestOfN, Duel, Ensemble, PlannedGeneration, UncertaintyRetry
from core.generation.setup import generation_agent, model_choices, turn_modes
from core.orchestrator import Orchestrator
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.providers.fake import EchoProvider
from core.providers.pricing import CostLedger
from core.providers.registry import ProviderFactory
from core.tools.toolset import Toolset
from core.turn_context import ContextGatherer, JournalHistory
from core.types import Message
from memory.journal import Journal


class Plain:
    def __init__(self, temperature: float | None = None) -> None:
        self.temperature = temperature

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        raise NotImplementedError
        yield


def build(mode: str, *, judge: bool = True, others: bool = True, **kw: object) -> object:
    cfg = GenerationConfig(mode=mode, uncertainty_retry=False, **kw)
    return generation_agent(
        Plain,
        {"fast": Plain()} if others else {},
        cfg,
        judge=EchoProvider() if judge else None,
        planner=EchoProvider(),
    )


def test_each_mode_gets_its_wrapper_and_falls_back_to_streaming_without_a_judge() -> None:
    assert isinstance(build("stream"), Plain)
    assert isinstance(build("best_of"), BestOfN)
    assert isinstance(build("duel"), Duel)
    assert isinstance(build("ensemble"), Ensemble)
    assert isinstance(build("best_of", judge=False), Plain)
    assert isinstance(build("duel", others=False), Plain)  # a duel needs a second model


def test_best_of_candidates_cycle_through_the_temperatures() -> None:
    seen: list[float | None] = []

    def agent_at(temperature: float | None) -> Plain:
        seen.append(temperature)
        return Plain(temperature)

    cfg = GenerationConfig(mode="best_of", n=4, temperatures=(0.2, 0.9), uncertainty_retry=False)
    generation_agent(agent_at, {}, cfg, judge=EchoProvider())
    assert seen == [0.2, 0.9, 0.2, 0.9]


def test_planning_and_the_memory_retry_wrap_the_panel() -> None:
    cfg = GenerationConfig(mode="stream", plan=True, review=True, uncertainty_retry=True)
    judge, planner = EchoProvider(), EchoProvider()
    agent = generation_agent(Plain, {}, cfg, judge=judge, planner=planner, memory_tool="search_memory")
    assert isinstance(agent, UncertaintyRetry)
    assert isinstance(agent._agent, PlannedGeneration)  # noqa: SLF001
    no_tool = generation_agent(Plain, {}, cfg, judge=EchoProvider(), planner=EchoProvider(), memory_tool=None)
    assert isinstance(no_tool, PlannedGeneration)  # no memory tool offered: no retry that needs one


def echo_config(*names: str) -> AppConfig:
    """The shipped config with only echo providers (`names[0]` the main one)."""
    config = load_config(env={})
    providers = {name: ProviderConfig(kind="echo", model=f"echo-{name}") for name in names}
    return config.model_copy(update={"providers": providers, "models": ModelsConfig(main=names[0])})


def test_turn_modes_are_bare_panels_without_the_configured_wrappers() -> None:
    seen: list[float | None] = []

    def agent_at(temperature: float | None) -> Plain:
        seen.append(temperature)
        return Plain(temperature)

    cfg = GenerationConfig(mode="stream", n=3, temperatures=(0.1, 0.9), plan=True, uncertainty_retry=True)
    modes, unavailable = turn_modes(agent_at, {"fast": Plain()}, cfg, EchoProvider())
    assert isinstance(modes["stream"], Plain) and isinstance(modes["best_of"], BestOfN)
    assert isinstance(modes["duel"], Duel) and unavailable == {}
    assert seen == [None, 0.1, 0.9, 0.1, None]  # stream, three best-of candidates, the duel's main side


async def test_every_configured_model_offers_the_turn_modes_and_a_duel_names_both(tmp_path: Path) -> None:
    config = echo_config("a", "b")
    choices = model_choices(config, ProviderFactory(config, {}, CostLedger()), ["a", "b"], Toolset())
    assert [(c.name, sorted(c.modes), dict(c.unavailable)) for c in choices] == [
        ("a", ["best_of", "duel", "stream"], {}),
        ("b", ["best_of", "duel", "stream"], {}),
    ]
    lone = echo_config("a")
    (only,) = model_choices(lone, ProviderFactory(lone, {}, CostLedger()), ["a"], Toolset())
    assert only.unavailable == {
        "duel": "needs a second model to answer beside this one (connect one in Settings)"
    }

    journal = Journal(tmp_path / "j.sqlite3")
    try:
        prompt = PromptBuilder("SYSTEM", EstimateCounter(), 8000)
        daemon = Orchestrator(choices, journal, ContextGatherer(JournalHistory(journal, 4)), prompt)
        events = [e async for e in daemon.run_turn("which is better?", model="b", mode="duel")]
    finally:
        journal.close()
    done = events[-1]
    assert isinstance(done, Done) and done.extra["mode"] == "duel"
    assert set(done.extra["models"].values()) == {"echo-a", "echo-b"}  # b against its rival a
    assert done.answer.endswith("which is better?")
