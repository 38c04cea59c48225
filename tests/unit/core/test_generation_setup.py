"""Which wrappers the configuration puts around the main agent."""

from __future__ import annotations

from core.config import GenerationConfig
from core.generation import BestOfN, Duel, Ensemble, PlannedGeneration, UncertaintyRetry
from core.generation.setup import generation_agent
from core.providers.fake import EchoProvider


class Plain:
    def __init__(self, temperature: float | None = None) -> None:
        self.temperature = temperature

    async def run(self, messages, *, cancel=None, max_tokens=None):  # type: ignore[no-untyped-def]
        raise NotImplementedError
        yield


def build(mode: str, *, judge: bool = True, others: bool = True, **kw: object) -> object:
    cfg = GenerationConfig(mode=mode, uncertainty_retry=False, **kw)  # type: ignore[arg-type]
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
