"""Sessions' state across turns: real turns store it (once each), previews read it and store nothing, and a
restart continues where the session was."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import cast

from core.errors import ProviderError
from core.events import Done, RunEvent, TextDelta
from core.orchestrator import ModelChoice, Orchestrator
from core.pipeline.analyzer import Analysis, ContextAnalyzer
from core.pipeline.escalation import EscalationConfig
from core.pipeline.intent import StmHint
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import ContextGatherer, JournalHistory
from core.types import Message, Usage
from memory.journal import Journal
from memory.session_state_store import SESSION_STATE_FILE, SessionStateDB

GROUNDING_TOKENS = EscalationConfig().grounding_tokens


class DistressAnalyzer:
    """Reads "awful" as elevated distress, anything else as conversational."""

    def analyze(self, text: str, short_term: StmHint | None = None) -> Analysis:
        tone = "elevated" if "awful" in text else "conversational"
        return Analysis("emotional_support", 0.9, tone, 0.0, ("work",), (), text, None)


class SteadyAgent:
    """Replies without suggesting anything (so no suggestion is ever ignored); fails when told to."""

    def __init__(self) -> None:
        self.budgets: list[int | None] = []
        self.fail = False

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        self.budgets.append(max_tokens)
        if self.fail:
            raise ProviderError("the provider is down")
        yield TextDelta("I'm here with you.")
        yield Done(answer="I'm here with you.", usage=Usage(5, 2), model="steady")


def open_daemon(data: Path, agent: SteadyAgent) -> tuple[Orchestrator, SessionStateDB, Journal]:
    """What `main.py` wires for one process over the data dir `data`."""
    journal = Journal(data / "journal.sqlite3")
    states = SessionStateDB(data / SESSION_STATE_FILE)
    context = ContextGatherer(
        JournalHistory(journal, 4),
        analyzer=cast(ContextAnalyzer, DistressAnalyzer()),  # only `analyze` is used
        escalation=EscalationConfig(),
        states=states,
    )
    prompt = PromptBuilder("S", EstimateCounter(), 8000)
    orchestrator = Orchestrator([ModelChoice("steady", agent)], journal, context, prompt)
    return orchestrator, states, journal


def where(states: SessionStateDB, session: str) -> tuple[str, int] | None:
    """The session's stored escalation state and how many turns it has been in it."""
    stored = states.load(session)
    return (stored.escalation_state, stored.turns_in_state) if stored else None


async def turn(orchestrator: Orchestrator, text: str, session: str) -> RunEvent:
    return [event async for event in orchestrator.run_turn(text, session_id=session)][-1]


async def test_answered_turns_escalate_the_session_and_a_restart_continues_there(tmp_path: Path) -> None:
    agent = SteadyAgent()
    orchestrator, states, journal = open_daemon(tmp_path, agent)
    session = journal.new_session()
    for text in ("I feel awful", "still awful", "awful, all of it"):
        assert isinstance(await turn(orchestrator, text, session), Done)
    assert where(states, session) == ("grounding_presence", 1)
    stored = states.load(session)
    assert stored is not None and stored.tones == ("elevated",) * 3 and stored.turns == 3
    assert agent.budgets[-1] == GROUNDING_TOKENS  # the third turn was already answered under it
    states.close()
    journal.close()

    restarted, states, journal = open_daemon(tmp_path, agent)  # a new process over the same data dir
    assert isinstance(await turn(restarted, "so awful", session), Done)
    assert agent.budgets[-1] == GROUNDING_TOKENS
    assert where(states, session) == ("grounding_presence", 2)
    states.close()
    journal.close()


async def test_a_prompt_preview_shows_the_next_state_and_stores_nothing(tmp_path: Path) -> None:
    orchestrator, states, journal = open_daemon(tmp_path, SteadyAgent())
    session = journal.new_session()
    for text in ("I feel awful", "still awful"):
        await turn(orchestrator, text, session)
    before = states._db.rows("SELECT * FROM session_state")
    prompt = await orchestrator.preview("awful again", session_id=session)
    assert "Be a steady, calm presence" in prompt.messages()[0].content  # the third message would ground
    await orchestrator.preview("awful again", session_id=session)
    assert states._db.rows("SELECT * FROM session_state") == before  # not even its timestamp changed
    fresh = await orchestrator.preview("awful", session_id="never-answered")
    assert fresh is not None and states.load("never-answered") is None
    states.close()
    journal.close()


async def test_a_failed_turn_is_stored_too_the_user_did_say_it(tmp_path: Path) -> None:
    agent = SteadyAgent()
    orchestrator, states, journal = open_daemon(tmp_path, agent)
    session = journal.new_session()
    agent.fail = True
    await turn(orchestrator, "why is everything so awful?", session)
    stored = states.load(session)
    assert stored is not None and stored.turns == 1 and stored.tones == ("elevated",)
    assert stored.open_questions == ("why is everything so awful?",)  # unanswered: kept open
    states.close()
    journal.close()
