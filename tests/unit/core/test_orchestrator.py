"""The orchestrator: journal first, history from the journal, commit before Done."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from core.errors import ProviderError, UserInputError
from core.events import Done, RunError, RunEvent, TextDelta
from core.generation.reply_guard import NOTHING_LEFT
from core.orchestrator import ModelChoice, Orchestrator
from core.pipeline.analyzer import Analysis, ContextAnalyzer
from core.pipeline.intent import StmHint
from core.ports import ExtractedFact, GraphBoost, GraphContext, RecalledMemory, TurnRecord
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import ContextGatherer, JournalHistory
from core.types import Message, Usage
from memory.journal import Journal


def query_of(messages: list[Message]) -> str:
    """The user's own words, as the prompt's last section states them."""
    return messages[-1].content.rsplit("The user says: ", 1)[-1]


def section(messages: list[Message], header: str) -> str:
    """The body of one context section, which the system message carries ("" when it is absent)."""
    text = messages[0].content
    if f"### {header}" not in text:
        return ""
    return text.split(f"### {header}", 1)[1].split("\n### ", 1)[0]


class RecordingAgent:
    """Answers `answer:<the user's message>` in two deltas and records the messages it saw."""

    def __init__(self, fail: BaseException | None = None) -> None:
        self.seen: list[list[Message]] = []
        self.budgets: list[int | None] = []
        self.fail = fail

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        self.seen.append(messages)
        self.budgets.append(max_tokens)
        if self.fail:
            raise self.fail
        answer = f"answer:{query_of(messages)}"
        yield TextDelta(answer[:3])
        yield TextDelta(answer[3:])
        yield Done(answer=answer, usage=Usage(5, 2), model="rec")


def make(tmp_path: Path, agent: RecordingAgent, recent: int = 8) -> tuple[Orchestrator, Journal]:
    journal = Journal(tmp_path / "j.sqlite3")
    orchestrator = Orchestrator(
        [ModelChoice("rec", agent)], journal, ContextGatherer(JournalHistory(journal, recent)), builder()
    )
    return orchestrator, journal


def builder() -> PromptBuilder:
    return PromptBuilder("SYSTEM", EstimateCounter(), 8000)


async def collect(
    orchestrator: Orchestrator, text: str, *, session_id: str | None = None, model: str | None = None
) -> list[RunEvent]:
    return [event async for event in orchestrator.run_turn(text, session_id=session_id, model=model)]


async def test_turn_is_committed_before_done_is_emitted(tmp_path: Path) -> None:
    orchestrator, journal = make(tmp_path, RecordingAgent())
    done = []
    async for event in orchestrator.run_turn("hello"):
        if isinstance(event, Done):  # checked while the turn is paused at Done, not after it ended
            stored = journal.turn(event.turn_id)
            assert stored is not None and stored.status == "complete"
            assert stored.assistant == "answer:hello"
            assert event.session_id == stored.session_id
            done.append(event)
    assert len(done) == 1, "the turn never emitted Done"


async def test_history_of_the_session_reaches_the_model(tmp_path: Path) -> None:
    agent = RecordingAgent()
    orchestrator, _ = make(tmp_path, agent, recent=1)
    first = (await collect(orchestrator, "one"))[-1]
    assert isinstance(first, Done)
    await collect(orchestrator, "two", session_id=first.session_id)
    assert [m.role for m in agent.seen[1]] == ["system", "user"]
    assert agent.seen[1][0].content.startswith("SYSTEM")
    assert section(agent.seen[1], "RECENT CONVERSATION").strip() == "User: one\nAssistant: answer:one"
    assert query_of(agent.seen[1]) == "two"
    assert "(Your last reply was: answer:one)" in section(agent.seen[1], "CURRENT QUERY")
    await collect(orchestrator, "three", session_id=first.session_id)
    # only the most recent turn is offered (recent=1)
    assert section(agent.seen[2], "RECENT CONVERSATION").strip() == "User: two\nAssistant: answer:two"


async def test_other_sessions_do_not_leak_into_history(tmp_path: Path) -> None:
    agent = RecordingAgent()
    orchestrator, _ = make(tmp_path, agent)
    await collect(orchestrator, "secret in session A")
    await collect(orchestrator, "fresh question")  # no session id: a new session
    assert section(agent.seen[-1], "RECENT CONVERSATION") == ""
    assert all("secret" not in m.content for m in agent.seen[-1])


async def test_empty_message_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    orchestrator, journal = make(tmp_path, RecordingAgent())
    with pytest.raises(UserInputError):
        await collect(orchestrator, "   ")
    assert journal.turns() == []


async def test_provider_failure_keeps_the_user_text(tmp_path: Path) -> None:
    orchestrator, journal = make(tmp_path, RecordingAgent(fail=ProviderError("server down")))
    events = await collect(orchestrator, "important note")
    assert isinstance(events[-1], RunError) and "server down" in events[-1].message
    [turn] = journal.turns()
    assert turn.user == "important note" and turn.status == "failed"


async def test_consumer_walking_away_marks_the_turn_cancelled(tmp_path: Path) -> None:
    orchestrator, journal = make(tmp_path, RecordingAgent())
    stream = orchestrator.run_turn("stop me")
    first = await stream.__anext__()
    assert isinstance(first, TextDelta)
    assert isinstance(stream, AsyncGenerator)  # an async generator, which the consumer can close
    await stream.aclose()
    [turn] = journal.turns()
    assert turn.user == "stop me" and turn.status == "cancelled"
    assert turn.assistant == "ans"  # what had been shown is kept with the turn


async def test_task_cancellation_keeps_the_shown_text(tmp_path: Path) -> None:
    class Slow(RecordingAgent):
        async def run(
            self,
            messages: list[Message],
            *,
            cancel: asyncio.Event | None = None,
            max_tokens: int | None = None,
        ) -> AsyncIterator[RunEvent]:
            yield TextDelta("partial ")
            await asyncio.sleep(10)
            yield Done(answer="never")

    orchestrator, journal = make(tmp_path, Slow())

    async def consume() -> None:
        async for _ in orchestrator.run_turn("long one"):
            pass

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    [turn] = journal.turns()
    assert (turn.user, turn.status, turn.assistant) == ("long one", "cancelled", "partial ")


async def test_unknown_model_is_a_clear_error(tmp_path: Path) -> None:
    orchestrator, _ = make(tmp_path, RecordingAgent())
    with pytest.raises(UserInputError, match="unknown model 'gpt-9'.*rec"):
        await collect(orchestrator, "hi", model="gpt-9")


class FakeMemory:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.shown: list[frozenset[str]] = []
        self.remembered: list[str] = []
        self.boosts: list[object] = []

    async def recall(
        self,
        query: str,
        session_id: str,
        limit: int,
        intent: str = "general",
        shown_turn_ids: frozenset[str] = frozenset(),
        boost: GraphBoost | None = None,
    ) -> list[RecalledMemory]:
        self.calls.append((query, intent))
        self.shown.append(shown_turn_ids)
        self.boosts.append(boost)
        return [RecalledMemory("conv_1", "conversations", "User: my dog is Rex", 0.9, 1_700_000_000.0)]

    async def remember(self, turn: TurnRecord) -> None:
        self.remembered.append(turn.turn_id)

    async def latest(
        self, collection: str, limit: int, where: Mapping[str, Any] | None = None
    ) -> list[RecalledMemory]:
        return []


class FakeAnalyzer:
    def analyze(self, text: str, short_term: StmHint | None = None) -> Analysis:
        if "end it" in text:
            return Analysis("emotional_support", 0.9, "crisis", 9.0, (), (), text, "CALL-988")
        return Analysis("factual_recall", 0.9, "conversational", 0.0, (), (), text, None)


async def test_analysis_picks_the_memory_profile_and_crisis_guidance_reaches_the_prompt(
    tmp_path: Path,
) -> None:
    from core.pipeline.escalation import EscalationConfig

    agent, memory = RecordingAgent(), FakeMemory()
    journal = Journal(tmp_path / "j.sqlite3")
    context = ContextGatherer(
        JournalHistory(journal, 4),
        memory=memory,
        analyzer=cast(ContextAnalyzer, FakeAnalyzer()),  # only `analyze` is used
        escalation=EscalationConfig(),
    )
    orchestrator = Orchestrator([ModelChoice("rec", agent)], journal, context, builder(), memory=memory)
    done = (await collect(orchestrator, "what is my dog called?"))[-1]
    assert memory.calls == [("what is my dog called?", "factual_recall")]
    memories = section(agent.seen[0], "RELEVANT MEMORIES")
    assert "[M1]" in memories and "User: my dog is Rex" in memories
    assert isinstance(done, Done) and memory.remembered == [done.turn_id]
    await collect(orchestrator, "I want to end it all", session_id=done.session_id)
    crisis_system = agent.seen[1][0].content
    assert "CALL-988" in crisis_system and "How to respond now:" in crisis_system
    # the escalation state sets each reply's length; a crisis asks for a shorter, grounding reply
    assert agent.budgets[0] is not None and agent.budgets[1] is not None
    assert agent.budgets[1] < agent.budgets[0]
    assert memory.calls[-1][1] == "emotional_support"
    # the turn the prompt already shows as recent history is not recalled again
    assert memory.shown == [frozenset(), frozenset({done.turn_id})]


class HotlineAgent(RecordingAgent):
    """Answers with a crisis line of its own."""

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        yield TextDelta("Please call or text 988 now.")
        yield Done(answer="Please call or text 988 now.", usage=Usage(5, 2), model="rec")


def analysed(tmp_path: Path, agent: RecordingAgent) -> tuple[Orchestrator, Journal]:
    journal = Journal(tmp_path / "j.sqlite3")
    context = ContextGatherer(JournalHistory(journal, 4), analyzer=cast(ContextAnalyzer, FakeAnalyzer()))
    return Orchestrator([ModelChoice("rec", agent)], journal, context, builder()), journal


async def test_a_crisis_reply_always_carries_the_support_text(tmp_path: Path) -> None:
    orchestrator, journal = analysed(tmp_path, RecordingAgent())
    events = await collect(orchestrator, "I want to end it all")
    done = events[-1]
    assert isinstance(done, Done) and done.answer == "answer:I want to end it all\n\nCALL-988"
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert shown == done.answer  # streamed too, so every front end shows it
    assert journal.turns(done.session_id)[0].assistant == done.answer
    calm = (await collect(orchestrator, "what is my dog called?", session_id=done.session_id))[-1]
    assert isinstance(calm, Done) and "CALL-988" not in calm.answer


async def test_a_reply_that_already_names_a_crisis_line_is_left_alone(tmp_path: Path) -> None:
    orchestrator, _ = analysed(tmp_path, HotlineAgent())
    done = (await collect(orchestrator, "I want to end it all"))[-1]
    assert isinstance(done, Done) and done.answer == "Please call or text 988 now."


def jo_boost(metadata: Mapping[str, str]) -> Mapping[str, float]:
    """The graph's boost; the test only checks that retrieval is handed this very function."""
    return {}


class FakeKnowledge:
    """Knows that the user's sister is Jo; records what it is taught."""

    def __init__(self) -> None:
        self.learned: list[tuple[list[str], str]] = []

    def context_for(self, text: str) -> GraphContext:
        if "sister" not in text:
            return GraphContext()
        return GraphContext(("Jo",), ("Jo is the user's sister.", "Jo lives in Boston."), boost=jo_boost)

    def learn(self, facts: Sequence[ExtractedFact], source_id: str, at: float) -> int:
        self.learned.append(([f.object for f in facts], source_id))
        return len(facts)


class FakeFacts:
    def extract(self, text: str) -> list[ExtractedFact]:
        if "live in" not in text:
            return []
        return [ExtractedFact("user", "lives in", text.rsplit(" ", 1)[-1], "location", "user", text, 0.9)]


async def test_the_graph_resolves_entities_for_retrieval_and_learns_stated_facts(tmp_path: Path) -> None:
    agent, memory, knowledge = RecordingAgent(), FakeMemory(), FakeKnowledge()
    journal = Journal(tmp_path / "j.sqlite3")
    context = ContextGatherer(JournalHistory(journal, 4), memory=memory, knowledge=knowledge)
    orchestrator = Orchestrator(
        [ModelChoice("rec", agent)],
        journal,
        context,
        builder(),
        memory=memory,
        knowledge=knowledge,
        extractor=FakeFacts(),
    )
    await collect(orchestrator, "how is my sister doing?")
    graph = section(agent.seen[0], "KNOWLEDGE GRAPH")
    assert "Jo is the user's sister." in graph and "Jo lives in Boston." in graph
    assert memory.calls[0][0] == "how is my sister doing? (Jo)"  # retrieval searches for what was meant
    assert memory.boosts == [jo_boost]
    assert knowledge.learned == []  # nothing stated, nothing learned
    done = (await collect(orchestrator, "I live in Denver"))[-1]
    assert isinstance(done, Done)
    assert knowledge.learned == [(["Denver"], done.turn_id)]
    assert section(agent.seen[1], "KNOWLEDGE GRAPH") == ""  # no entity, no graph section


async def test_citations_in_the_answer_map_to_the_items_the_prompt_showed(tmp_path: Path) -> None:
    class Citing(RecordingAgent):
        async def run(
            self,
            messages: list[Message],
            *,
            cancel: asyncio.Event | None = None,
            max_tokens: int | None = None,
        ) -> AsyncIterator[RunEvent]:
            self.seen.append(messages)
            yield Done(answer="Your dog is Rex [M1]. Also [M9] and [M1] again.", model="rec")

    agent, memory = Citing(), FakeMemory()
    journal = Journal(tmp_path / "j.sqlite3")
    context = ContextGatherer(JournalHistory(journal, 4), memory=memory)
    orchestrator = Orchestrator([ModelChoice("rec", agent)], journal, context, builder(), memory=memory)
    done = (await collect(orchestrator, "what is my dog called?"))[-1]
    assert isinstance(done, Done)
    assert done.answer == "Your dog is Rex [1]. Also and [1] again."  # M9 names nothing: removed
    assert [(c["marker"], c["source"], c["id"]) for c in done.citations] == [("1", "M1", "conv_1")]
    stored = journal.turn(done.turn_id)
    assert stored is not None and stored.citations == list(done.citations)


class Saying(RecordingAgent):
    """Says `answer` in deltas of `size` characters, then `Done` with the whole of it."""

    def __init__(self, answer: str, size: int) -> None:
        super().__init__()
        self.answer, self.size = answer, size

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        for at in range(0, len(self.answer), self.size):
            yield TextDelta(self.answer[at : at + self.size])
        yield Done(answer=self.answer, model="rec")


async def test_prompt_markup_never_reaches_the_user_streamed_or_stored(tmp_path: Path) -> None:
    leaking = Saying("Your tortoise is Sir Reginald [M1] [f1]. ### trusted faces [f1] Teodora Elena", 4)
    memory = FakeMemory()
    journal = Journal(tmp_path / "j.sqlite3")
    context = ContextGatherer(JournalHistory(journal, 4), memory=memory)
    orchestrator = Orchestrator([ModelChoice("rec", leaking)], journal, context, builder(), memory=memory)
    events = await collect(orchestrator, "what is my tortoise called?")
    streamed = "".join(e.text for e in events if isinstance(e, TextDelta))
    done = events[-1]
    assert isinstance(done, Done)
    assert done.answer == "Your tortoise is Sir Reginald [1]."  # a numbered source
    assert streamed == "Your tortoise is Sir Reginald [1] . "  # shown before the cut: spaces only differ
    stored = journal.turn(done.turn_id)
    assert stored is not None and stored.assistant == done.answer


async def test_a_reply_that_is_only_markup_says_so_plainly(tmp_path: Path) -> None:
    only_markup = "### USER PROFILE\n- The user is"
    orchestrator, _ = make(tmp_path, Saying(only_markup, len(only_markup)))
    events = await collect(orchestrator, "hi")
    done = events[-1]
    assert isinstance(done, Done) and done.answer == NOTHING_LEFT
    assert not [e for e in events if isinstance(e, TextDelta)]  # a front end shows done.answer instead


class GatedAgent(RecordingAgent):
    """A `RecordingAgent` that holds its answer until `release` is set (a turn caught in flight)."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.release = asyncio.Event(), asyncio.Event()

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        self.started.set()
        await self.release.wait()
        async for event in super().run(messages, cancel=cancel, max_tokens=max_tokens):
            yield event


async def test_a_model_added_at_run_time_becomes_the_default_and_replaces_its_namesake(
    tmp_path: Path,
) -> None:
    first, second, third = RecordingAgent(), RecordingAgent(), RecordingAgent()
    orchestrator, _ = make(tmp_path, first)

    orchestrator.use_model(ModelChoice("ollama", second, "qwen2.5:7b"))
    await collect(orchestrator, "hi")
    orchestrator.use_model(ModelChoice("ollama", third, "llama3.2"))
    await collect(orchestrator, "again")

    assert orchestrator.default_model == "ollama" and orchestrator.model_names == ["ollama", "rec"]
    assert orchestrator.describe_model("ollama") == "llama3.2"
    assert (len(first.seen), len(second.seen), len(third.seen)) == (0, 1, 1)
    await collect(orchestrator, "old one", model="rec")  # the start-up model stays selectable
    assert len(first.seen) == 1


async def test_a_turn_in_flight_keeps_the_model_it_started_with(tmp_path: Path) -> None:
    old, new = GatedAgent(), RecordingAgent()
    orchestrator, journal = make(tmp_path, old)

    running = asyncio.create_task(collect(orchestrator, "slow question"))
    await old.started.wait()
    orchestrator.use_model(ModelChoice("new", new))
    old.release.set()
    events = await running
    await collect(orchestrator, "next question")

    assert isinstance(events[-1], Done) and events[-1].answer == "answer:slow question"
    assert [query_of(m) for m in old.seen] == ["slow question"]
    assert [query_of(m) for m in new.seen] == ["next question"]
    assert [t.status for t in journal.turns()] == ["complete", "complete"]


async def test_a_model_with_its_own_prompt_builder_is_prompted_by_it(tmp_path: Path) -> None:
    agent = RecordingAgent()
    orchestrator, _ = make(tmp_path, RecordingAgent())

    orchestrator.use_model(
        ModelChoice("own", agent, prompt=PromptBuilder("OWN SYSTEM", EstimateCounter(), 4000))
    )
    await collect(orchestrator, "hello")

    assert agent.seen[0][0].content.startswith("OWN SYSTEM")
