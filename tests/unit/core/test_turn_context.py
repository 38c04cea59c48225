"""Gathering a turn's context: the LLM's rewrite drives retrieval only, and open questions stay visible."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import pytest

from core.pipeline.analyzer import Analysis, ContextAnalyzer
from core.pipeline.intent import StmHint
from core.pipeline.rewrite import LlmRefiner
from core.ports import FactPort, FactView, GraphBoost, RecalledMemory, TurnRecord, conversation_id
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.providers.fake import ScriptedProvider
from core.turn_context import ContextGatherer, JournalHistory, TurnContext, question_asked
from memory.journal import Journal


async def prompt_text(gathered: TurnContext) -> str:
    return (await PromptBuilder("SYSTEM", EstimateCounter(), 8000).build(gathered)).user_text()


JO = RecalledMemory("m1", "conversations", "Jo moves to Lisbon on May 3", 0.8)


class FakeMemory:
    """Memories in rank order, the first `limit` of them for any query; the queries and limits asked kept."""

    def __init__(self, ranked: tuple[RecalledMemory, ...] = (JO,)) -> None:
        self.ranked = ranked
        self.queries: list[str] = []
        self.limits: list[int] = []

    async def recall(
        self,
        query: str,
        session_id: str,
        limit: int,
        intent: str = "general",
        shown_turn_ids: frozenset[str] = frozenset(),
        boost: GraphBoost | None = None,
    ) -> list[RecalledMemory]:
        self.queries.append(query)
        self.limits.append(limit)
        return list(self.ranked[:limit])

    async def remember(self, turn: TurnRecord) -> None:
        return None

    async def latest(
        self, collection: str, limit: int, where: Mapping[str, Any] | None = None
    ) -> list[RecalledMemory]:
        return []


class FakeAnalyzer:
    def analyze(self, text: str, short_term: StmHint | None = None) -> Analysis:
        return Analysis("factual_recall", 0.4, "conversational", 0.0, ("offline topic",), (), text, None)


def gatherer(
    tmp_path: Path, memory: FakeMemory, refiner: LlmRefiner | None = None
) -> tuple[ContextGatherer, Journal]:  # noqa: E501
    journal = Journal(tmp_path / "j.sqlite3")
    context = ContextGatherer(
        JournalHistory(journal, 4),
        memory=memory,
        analyzer=cast(ContextAnalyzer, FakeAnalyzer()),  # only `analyze` is used
        refiner=refiner,
    )
    return context, journal


async def test_the_rewritten_query_drives_retrieval_while_the_prompt_keeps_the_users_words(
    tmp_path: Path,
) -> None:
    answer = {
        "query": "when is Jo moving to Lisbon",
        "topics": ["Jo's move"],
        "relation": "continuing",
        "open_questions": ["which neighbourhood will Jo live in?"],
    }
    memory = FakeMemory()
    context, journal = gatherer(tmp_path, memory, LlmRefiner(ScriptedProvider([json.dumps(answer)])))
    session = journal.new_session()
    gathered = await context.gather(session, "when is she going?")
    assert memory.queries == ["when is Jo moving to Lisbon"]
    assert gathered.analysis is not None and gathered.analysis.topics == ("Jo's move", "offline topic")
    text = await prompt_text(gathered)
    assert text.endswith("The user says: when is she going?")  # the user's words, not the rewrite
    assert "when is Jo moving" not in text
    assert "Recent topics: Jo's move, offline topic." in text
    assert "Still unanswered from this session: which neighbourhood will Jo live in?" in text
    assert "[M1] Jo moves to Lisbon on May 3" in text


async def test_without_a_refiner_the_message_itself_is_the_query(tmp_path: Path) -> None:
    memory = FakeMemory()
    context, journal = gatherer(tmp_path, memory)
    gathered = await context.gather(journal.new_session(), "when is she going?")
    assert memory.queries == ["when is she going?"] and gathered.retrieval_query == "when is she going?"


async def test_a_question_left_unanswered_stays_open_until_it_is_answered(tmp_path: Path) -> None:
    context, journal = gatherer(tmp_path, FakeMemory())
    session = journal.new_session()
    context.observe_reply(session, "What was the name of Jo's landlord?", "", "failed")
    context.observe_reply(session, "Where did I park?", "I'm not sure, you didn't tell me.", "complete")
    context.observe_reply(session, "Thanks, that helps.", "", "failed")  # not a question: nothing to track
    gathered = await context.gather(session, "anything else?")
    assert gathered.short_term.open_questions == ("What was the name of Jo's landlord?", "Where did I park?")
    context.observe_reply(session, "what was the name of Jo's landlord?", "Mr. Alves.", "complete")
    gathered = await context.gather(session, "ok")
    assert gathered.short_term.open_questions == ("Where did I park?",)


class FakeFacts:
    def profile(self, now: float) -> list[FactView]:
        return [
            FactView("f1", "user", "lives_in", "Denver", "current", 0.85, "location"),
            FactView("f2", "Jo", "sister_of", "user", "current", 0.8, "family"),
        ]


async def test_the_profile_of_current_facts_reaches_the_prompt(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    facts = cast(FactPort, FakeFacts())  # the gatherer reads `profile` only
    context = ContextGatherer(JournalHistory(journal, 4), facts=facts)
    text = await prompt_text(await context.gather(journal.new_session(), "hi"))
    profile = "### USER PROFILE\n[F1] location: The user lives in Denver.\n[F2] family: Jo is the user's"
    assert profile in text


RANKED = tuple(RecalledMemory(f"m{i}", "conversations", f"memory {i}", 1 - i / 10) for i in range(10))


async def test_the_prompt_shows_the_head_of_the_ranking_the_offline_answerer_reads(tmp_path: Path) -> None:
    memory = FakeMemory(RANKED)
    journal = Journal(tmp_path / "j.sqlite3")
    context = ContextGatherer(
        JournalHistory(journal, 4),
        memory=memory,
        recall_limit=3,
        evidence_limit=8,
        analyzer=cast(ContextAnalyzer, FakeAnalyzer()),
    )
    gathered = await context.gather(journal.new_session(), "where did I say the keys were?")
    assert memory.limits == [8]  # one search
    assert [m.id for m in gathered.memories] == ["m0", "m1", "m2"]
    assert [m.id for m in gathered.read_evidence] == [f"m{i}" for i in range(8)]
    text = await prompt_text(gathered)
    assert "memory 2" in text and "memory 3" not in text  # the prompt never shows the reader's extra


async def test_without_an_evidence_limit_the_reader_reads_what_the_prompt_shows(tmp_path: Path) -> None:
    memory = FakeMemory(RANKED)
    context, journal = gatherer(tmp_path, memory)
    gathered = await context.gather(journal.new_session(), "where did I say the keys were?")
    assert memory.limits == [6] and gathered.read_evidence == gathered.memories


class NamedDana:
    def profile(self, now: float) -> list[FactView]:
        return [FactView("f1", "user", "named", "Dana", "current", 0.9, "identity")]


async def test_the_users_own_name_in_a_question_is_searched_as_the_user(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    memory = FakeMemory()
    context = ContextGatherer(JournalHistory(journal, 4), memory=memory, facts=cast(FactPort, NamedDana()))
    session = journal.new_session()
    gathered = await context.gather(session, "What did Dana paint for Dana's mum?")
    assert memory.queries == ["What did I paint for my mum?"]
    assert gathered.text == "What did Dana paint for Dana's mum?"  # the prompt keeps the user's words
    await context.gather(session, "Dana, what did Jo paint?")  # a name opening the message addresses
    assert memory.queries[-1] == "Dana, what did Jo paint?"


async def test_a_recalled_turn_carries_the_question_its_message_answered(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite3")
    session = journal.new_session()
    asked = journal.begin_turn(session, "The kids finish school on Friday.")
    journal.complete_turn(asked, "Exciting! [image: a beach] Any plans for the summer?")
    answer = journal.begin_turn(session, "Researching adoption agencies.")
    journal.complete_turn(answer, "That's wonderful.")
    calm = journal.begin_turn(session, "Thanks!")
    journal.complete_turn(calm, "You're welcome.")
    ranked = tuple(
        RecalledMemory(conversation_id(turn), "conversations", "…", 0.5) for turn in (answer, calm, asked)
    )
    context = ContextGatherer(JournalHistory(journal, 4), memory=FakeMemory(ranked), evidence_limit=6)
    gathered = await context.gather(journal.new_session(), "What are my plans for the summer?")
    # the reply before "Thanks!" asked nothing, and the first turn of a session answers nothing
    assert gathered.answering == {conversation_id(answer): "Any plans for the summer?"}


@pytest.mark.parametrize(
    ("reply", "question"),
    [
        ("Great! What did you paint?", "What did you paint?"),
        ("What did you paint? It looks great.", ""),  # the reply moved on: the next message answers that
        ("Lovely photo. [image: a dog on a beach]", ""),
        ("", ""),
    ],
)
def test_the_question_a_reply_ends_on(reply: str, question: str) -> None:
    assert question_asked(reply) == question
