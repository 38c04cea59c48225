"""The chat's per-turn mode selector without a browser: which modes a model offers and why others are not,
that a chosen mode answers that one turn (and says so) while other sessions and later turns stay as
configured, and that an unavailable mode is refused before anything runs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from core.config import GenerationConfig
from core.errors import UserInputError
from core.events import Done, RunEvent, TextDelta
from core.generation import BestOfN, Duel
from core.generation.setup import turn_modes
from core.orchestrator import ModelChoice, Orchestrator
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.providers.fake import EchoProvider
from core.turn_context import ContextGatherer, JournalHistory
from core.types import Message, Usage
from memory.journal import Journal
from ui.gui.chat_controller import (
    CONFIGURED,
    ChatController,
    ChatSession,
    ModeOption,
    mode_choices,
    mode_options,
    offers_a_choice,
    requested_mode,
)

CONFIG = GenerationConfig(n=2)


class Echo:
    """An agent that answers `Echo: <message>` in one delta (and counts its runs)."""

    def __init__(self, name: str = "m") -> None:
        self.name, self.runs = name, 0

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        self.runs += 1
        text = "Echo: " + messages[-1].content.rsplit("The user says: ", 1)[-1]
        yield TextDelta(text)
        yield Done(text, usage=Usage(3, 2), model=self.name)


def choice(
    agent: Echo, judge: EchoProvider | None = EchoProvider(), rivals: dict | None = None
) -> ModelChoice:
    modes, unavailable = turn_modes(lambda _t: agent, rivals or {}, CONFIG, judge)
    return ModelChoice(agent.name, agent, modes=modes, unavailable=unavailable)


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    journal = Journal(tmp_path / "j.sqlite3")
    yield journal
    journal.close()


def orchestrator(journal: Journal, *choices: ModelChoice) -> Orchestrator:
    prompt = PromptBuilder("SYSTEM", EstimateCounter(), 8000)
    return Orchestrator(list(choices), journal, ContextGatherer(JournalHistory(journal, 4)), prompt)


def test_each_mode_needs_what_it_needs() -> None:
    lone = choice(Echo())
    assert isinstance(lone.modes["best_of"], BestOfN) and set(lone.modes) == {"stream", "best_of"}
    assert lone.unavailable == {
        "duel": "needs a second model to answer beside this one (connect one in Settings)"
    }
    paired = choice(Echo(), rivals={"other": Echo("other")})
    assert isinstance(paired.modes["duel"], Duel)
    no_judge = choice(Echo(), judge=None, rivals={"other": Echo("other")})
    assert set(no_judge.modes) == {"stream"}
    assert all("judge" in why for why in no_judge.unavailable.values())
    assert set(no_judge.unavailable) == {"best_of", "duel"}


def test_options_list_every_mode_and_refuse_the_unavailable_ones(journal: Journal) -> None:
    options = mode_options(orchestrator(journal, choice(Echo())), None)
    assert options == [
        ModeOption("stream"),
        ModeOption("best_of"),
        ModeOption("duel", "needs a second model to answer beside this one (connect one in Settings)"),
    ]
    labels = dict(mode_choices(options))
    assert labels["as configured"] == CONFIGURED
    assert (
        labels["duel (unavailable: needs a second model to answer beside this one (connect one in Settings))"]
        == "duel"
    )
    assert requested_mode(CONFIGURED, options) == (None, None)
    assert requested_mode("best_of", options) == ("best_of", None)
    asked, refusal = requested_mode("duel", options)
    assert (
        asked is None
        and refusal is not None
        and "needs a second model to answer beside this one (connect one in Settings)" in refusal
    )
    assert requested_mode("ensemble", options)[1] == "unknown mode 'ensemble'."
    assert mode_options(object(), None) == []  # a backend without modes offers no selector


async def test_the_orchestrator_refuses_an_unavailable_mode_before_storing_anything(journal: Journal) -> None:
    daemon = orchestrator(journal, choice(Echo()))
    assert daemon.turn_modes() == {
        "stream": "",
        "best_of": "",
        "duel": "needs a second model to answer beside this one (connect one in Settings)",
    }
    with pytest.raises(UserInputError, match="second model to answer beside this one"):
        _ = [event async for event in daemon.run_turn("hi", mode="duel")]
    assert journal.turns() == []


async def run(
    controller: ChatController, session: ChatSession, text: str, mode: str | None
) -> tuple[str, str]:
    """The last update's status and the text of the turn's assistant messages."""
    updates = [u async for u in controller.submit(text, [], session, None, mode=mode)]
    last = updates[-1]
    replies = [m["content"] for m in last.messages or [] if m["role"] == "assistant"]
    return str(last.status), "\n".join(replies)


async def test_best_of_answers_one_turn_of_one_session_and_says_so(journal: Journal) -> None:
    agent = Echo()
    controller = ChatController(orchestrator(journal, choice(agent)), min_interval_s=0)
    mine, theirs = ChatSession(), ChatSession()
    status, reply = await run(controller, mine, "pick one", "best_of")
    assert "mode: best-of" in status and "m ·" in status
    assert reply.startswith("Echo: pick one") and "_answered in best-of mode by m_" in reply
    assert (
        agent.runs == 2
    )  # two candidates, judged (the echo judge's verdict is unreadable: the first stands)
    status, reply = await run(controller, theirs, "plain", None)
    assert "mode: stream" in status and "answered in" not in reply
    assert agent.runs == 3
    status, _ = await run(controller, mine, "again", None)  # the mode was for one turn only
    assert "mode: stream" in status and agent.runs == 4
    stored = journal.turns()
    assert [t.status for t in stored] == ["complete"] * 3


async def test_an_unavailable_mode_shows_the_reason_and_runs_nothing(journal: Journal) -> None:
    agent = Echo()
    controller = ChatController(orchestrator(journal, choice(agent)), min_interval_s=0)
    status, _ = await run(controller, ChatSession(), "duel me", "duel")
    assert status.startswith("⚠") and "second model to answer beside this one" in status
    assert agent.runs == 0


def test_the_mode_selector_shows_only_when_it_offers_a_choice() -> None:
    unavailable = "needs a second model to answer beside this one (connect one in Settings)"
    assert not offers_a_choice([ModeOption("stream"), ModeOption("duel", unavailable)])
    assert offers_a_choice([ModeOption("stream"), ModeOption("best_of"), ModeOption("duel", unavailable)])
