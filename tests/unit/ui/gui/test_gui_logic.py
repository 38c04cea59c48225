"""The GUI tabs' logic without a browser: proposals and sources of a turn, fact edits by correction, the
review decision, staleness, the status report and /health, session rows, and where uploads are kept."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from core.errors import DaemonError, UserInputError
from core.events import Done, RunEvent, TextDelta, ToolProposal
from core.learning import FactLearning
from core.ports import ExtractedFact, TurnRecord
from core.types import ToolCall
from knowledge.graph_store import GraphStore
from knowledge.service import KnowledgeService
from memory.dedup import DedupScanner, DedupSettings
from memory.embeddings import HashingEmbedder
from memory.facts.service import FactMemory, open_fact_memory
from memory.facts.store import FactStore
from memory.facts.verification import SINGLE_VALUED, FactVerifier
from memory.inmemory_store import InMemoryStore
from memory.review import ReviewQueue
from memory.service import MemoryService
from tests.unit.memory.profile_helpers import committed_profiles
from ui.gui import memory_logic as logic
from ui.gui.backends import GuiBackends
from ui.gui.chat_logic import (
    GuiChatSession,
    RecordingBackend,
    describe_proposal,
    history_messages,
    model_options,
    source_choices,
)
from ui.gui.documents_tab import DocumentDesk
from ui.gui.sessions_tab import session_rows
from ui.gui.status_tab import health_payload, status_report
from ui.gui.widgets import has_rows

T0 = 1_700_000_000.0


class Scripted:
    """A backend whose turn proposes a call and cites one memory."""

    default_model = "m"
    model_names = ["m"]

    def describe_model(self, name: str) -> str:
        return "the m model"

    def new_session(self) -> str:
        return "s1"

    async def run_turn(self, text: str, **_: Any) -> AsyncIterator[RunEvent]:
        yield TextDelta("hi")
        yield ToolProposal(ToolCall("c1", "save_note", {"text": text}), "Saves a note.\nMore lines.")
        yield Done("hi [M1]", citations=({"marker": "M1", "id": "doc_1", "text": "the zebra doc"},))


async def test_a_turn_leaves_its_proposals_and_sources_on_its_own_tab_only() -> None:
    mine, other = GuiChatSession(), GuiChatSession()
    mine.proposals.append(ToolProposal(ToolCall("old", "x", {})))  # from the previous turn: dropped
    events = [e async for e in RecordingBackend(Scripted(), mine).run_turn("note this")]
    assert [type(e).__name__ for e in events] == ["TextDelta", "ToolProposal", "Done"]  # unchanged
    assert [p.call.id for p in mine.proposals] == ["c1"]
    assert mine.citations == [{"marker": "M1", "id": "doc_1", "text": "the zebra doc"}]
    assert other.proposals == [] and other.citations == []
    assert source_choices(mine.citations) == [("[M1] the zebra doc", "0")]
    web = source_choices([{"title": "Page", "url": "https://example.org"}])
    assert web == [("[1] Page", "0")]


def test_proposal_and_restored_history_cannot_render_remote_media() -> None:
    proposal = ToolProposal(
        ToolCall("c", "save_note", {"text": "![x](http://203.0.113.1/p.png)"}), "<img src=x>"
    )
    shown = describe_proposal(proposal)
    assert "save_note" in shown and "<img" not in shown.replace("&lt;img", "")
    turns = [
        TurnRecord(
            "t1", "s", "hello <img src=http://203.0.113.1/a.png>", "![p](http://203.0.113.1/b.png)", T0
        ),
        TurnRecord("t2", "s", "stop", "", T0 + 1, status="cancelled"),
    ]
    messages = history_messages(turns)
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert "&lt;img" in messages[0]["content"] and messages[1]["content"].startswith("\\![p]")
    assert messages[3]["content"] == "_Stopped._"


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[MemoryService, Any]]:
    memory = MemoryService(InMemoryStore(HashingEmbedder(256)), committed_profiles())
    memory.open()
    facts, close = open_fact_memory(tmp_path, memory)
    yield memory, facts
    close()
    memory.close()


def _say(facts: Any, subject: str, predicate: str, value: str, turn: str) -> None:
    fact = ExtractedFact(subject, predicate, value, "location", "user", f"I {predicate} {value}", 0.95)
    asyncio.run(facts.record([fact], TurnRecord(turn, "s", f"I {predicate} {value}", "", T0)))


def _homes(graph: KnowledgeService) -> list[str]:
    """Where the graph says the user lives now."""
    return graph.edit(lambda g: sorted(e.target for e in g.edges(g.ensure_user(), "lives_in")))


def test_editing_a_fact_supersedes_it_through_the_correction_path(
    stores: tuple[MemoryService, Any], tmp_path: Path
) -> None:
    memory, facts = stores
    graph = KnowledgeService(GraphStore(tmp_path / "graph.json"))
    learning = FactLearning(facts, graph)
    fact = ExtractedFact("user", "lives in", "Lyon", "location", "user", "I live in Lyon", 0.95)
    asyncio.run(learning.record([fact], TurnRecord("t1", "s", "I live in Lyon", "", T0)))  # as a turn does
    assert _homes(graph) == ["lyon"]
    [lyon] = facts.list_facts("current")
    result = asyncio.run(logic.correct_fact(facts, learning, lyon.id, "Paris"))
    assert "Lyon → Paris" in result.message
    by_value = {f.object: f for f in facts.list_facts()}
    assert by_value["Lyon"].status == "superseded" and by_value["Paris"].status == "current"
    assert by_value["Lyon"].superseded_by == by_value["Paris"].id  # history, linked, never overwritten
    rows = asyncio.run(logic.search_rows(memory, "Lyon", logic.ALL, "general"))
    lyon_row = next(r for r in rows if "Lyon" in r[4])
    assert lyon_row[2] == "you"  # a fact: learned from the user's own words
    assert lyon_row[5] == "superseded" and "superseded -" in lyon_row[6]
    assert _homes(graph) == ["paris"]  # the graph follows the edit, as it follows a correction in chat
    with pytest.raises(UserInputError):
        asyncio.run(logic.correct_fact(facts, learning, lyon.id, "Berlin"))  # no longer current


def test_remove_is_soft_and_undo_restores(stores: tuple[MemoryService, Any], tmp_path: Path) -> None:
    _, facts = stores
    graph = KnowledgeService(GraphStore(tmp_path / "graph.json"))
    learning = FactLearning(facts, graph)
    fact = ExtractedFact("user", "lives in", "Lyon", "location", "user", "I live in Lyon", 0.95)
    asyncio.run(learning.record([fact], TurnRecord("t1", "s", "I live in Lyon", "", T0)))
    [lyon] = facts.list_facts("current")
    assert "removed" in asyncio.run(logic.retire_fact(facts, learning, lyon.id))
    assert facts.list_facts("current") == [] and facts.list_facts()[0].reason == logic.RETIRED_REASON
    assert logic.fact_rows(facts, show_history=True)[0][4] == "superseded"
    assert _homes(graph) == []  # the graph's edge ended with it
    asyncio.run(logic.restore_fact(facts, learning, lyon.id))
    assert [f.object for f in facts.list_facts("current")] == ["Lyon"]
    assert _homes(graph) == ["lyon"]
    with pytest.raises(UserInputError):
        asyncio.run(logic.restore_fact(facts, learning, ""))


def test_approving_a_contradiction_in_the_gui_retires_the_fact_like_the_cli(tmp_path: Path) -> None:
    queue = ReviewQueue(tmp_path / "review.sqlite3")
    memory = MemoryService(
        InMemoryStore(HashingEmbedder(256)), committed_profiles(), hidden=queue.hidden.hidden_ids
    )
    memory.open()
    facts = FactMemory(
        FactStore(tmp_path / "facts.sqlite3"), FactVerifier(), index=lambda r: memory.add("facts", r)
    )
    for n, city in enumerate(("Boston", "Paris")):
        said = ExtractedFact("Jo", "lives in", city, "family", "entity", f"Jo lives in {city}", 0.9)
        asyncio.run(facts.record([said], TurnRecord(f"t{n}", "s", "", "", T0 + n)))
    facts.set_current(facts.list_facts()[0].id, True, "test: both current")
    scanner = DedupScanner(queue, DedupSettings(contradiction_predicates=frozenset(SINGLE_VALUED)))
    queue.propose(scanner.scan_store(memory.store, ["facts"]))
    [row] = logic.review_table(queue, memory)
    assert row[1] == "contradiction" and "Boston" in row[5] and "Paris" in row[5]
    assert "kept" in logic.decide_review(queue, memory, facts, row[0], approve=True)
    assert {f.object: f.status for f in facts.list_facts()} == {"Boston": "superseded", "Paris": "current"}
    assert logic.review_table(queue, memory) == []
    with pytest.raises(UserInputError):
        logic.decide_review(queue, memory, facts, "nope", approve=False)
    queue.close()
    memory.close()


def test_search_refuses_unknown_choices_and_ignores_a_blank_query(stores: tuple[MemoryService, Any]) -> None:
    memory, _ = stores
    assert asyncio.run(logic.search_rows(memory, "  ", logic.ALL, "general")) == []
    with pytest.raises(UserInputError):
        asyncio.run(logic.search_rows(memory, "x", "no_such", "general"))
    with pytest.raises(UserInputError):
        asyncio.run(logic.search_rows(memory, "x", logic.ALL, "no_such"))
    assert logic.staleness({"staleness_ratio": 0.5}) == "50% of its claims replaced"


class BrokenMemory:
    def stats(self) -> dict[str, int]:
        raise DaemonError("chroma is gone")


def test_status_reports_a_broken_store_and_health_shows_no_contents(
    stores: tuple[MemoryService, Any],
) -> None:
    memory, facts = stores
    _say(facts, "user", "lives in", "Lyon", "t1")
    report = status_report(Scripted(), GuiBackends(memory=memory, facts=facts, version="1"))
    assert all(c["ok"] for c in report["checks"]) and report["collections"]["facts"] == 1
    healthy = health_payload(Scripted(), GuiBackends(memory=memory, facts=facts, version="1"))
    assert healthy["ok"] is True and "Lyon" not in str(healthy) and "collections" not in healthy
    broken = health_payload(Scripted(), GuiBackends(memory=cast(MemoryService, BrokenMemory())))
    assert broken["ok"] is False and broken["checks"]["memory store (Chroma)"] is False


def test_session_rows_are_newest_first_with_their_summary() -> None:
    turns = [
        TurnRecord("a1", "A", "first in A", "x", T0),
        TurnRecord("b1", "B", "first in B", "y", T0 + 10),
        TurnRecord("a2", "A", "second in A", "z", T0 + 20),
    ]
    rows = session_rows(turns, {"B": "talked about B"})
    assert [(r[0], r[2], r[3], r[4]) for r in rows] == [
        ("A", 2, "first in A", ""),
        ("B", 1, "first in B", "talked about B"),
    ]


def test_uploads_are_kept_inside_the_upload_dir_under_a_safe_new_name(tmp_path: Path) -> None:
    # Keeping an upload uses neither the job ledger nor the ingester.
    desk = DocumentDesk(
        ledger=None,  # type: ignore[arg-type]  # never used here
        open_ingester=lambda: None,  # type: ignore[arg-type,return-value]  # never called here
        upload_dir=tmp_path / "uploads",
    )
    source = tmp_path / "tmpfile"
    source.write_text("hello")
    first = desk.keep_upload(str(source), "../../etc/passwd")
    second = desk.keep_upload(str(source), "../../etc/passwd")
    odd = desk.keep_upload(str(source), "rapport final?<>.md")
    for kept in (first, second, odd):
        assert kept.parent == tmp_path / "uploads" and kept.read_text() == "hello"
    assert first.name == "passwd" and second.name == "passwd-1" and odd.name == "rapport final_.md"


def test_health_route_answers_503_when_a_part_fails() -> None:
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from ui.gui.app import _health_routes

    ok = TestClient(Starlette(routes=_health_routes(lambda: {"ok": True, "checks": {}})))
    assert ok.get("/health").status_code == 200
    failing = TestClient(Starlette(routes=_health_routes(lambda: {"ok": False, "checks": {"memory": False}})))
    response = failing.get("/health")
    assert response.status_code == 503 and response.json() == {"ok": False, "checks": {"memory": False}}


def test_the_data_dir_is_blocked_around_the_upload_folder_only(tmp_path: Path) -> None:
    from ui.gui.app import blocked_except

    data = tmp_path / "data"
    (data / "chroma").mkdir(parents=True)
    (data / "facts.sqlite3").write_text("x")
    upload = data / "gradio-tmp"
    blocked = blocked_except([data, tmp_path / "elsewhere"], upload)
    assert sorted(blocked) == sorted(
        str(p.resolve()) for p in (data / "chroma", data / "facts.sqlite3", tmp_path / "elsewhere")
    )
    assert upload.is_dir()
    outside = tmp_path / "tmp-gradio"
    assert blocked_except([data], outside) == [str(data.resolve())]  # nothing to carve out


def test_an_opened_web_source_links_only_http_and_renders_nothing_remote() -> None:
    from ui.gui.items import open_citation

    web = asyncio.run(
        open_citation(None, {"title": "Otters <img src=x>", "url": "https://example.org/a_(b)"})
    )
    assert "[example.org](https://example.org/a_%28b%29)" in web and "<img" not in web
    for bad in ("javascript:alert(1)", "data:text/html,<b>x</b>", "https://x.org/ [y](javascript:z)"):
        shown = asyncio.run(open_citation(None, {"title": "t", "url": bad}))
        last = shown.split("\n\n")[-1]
        assert last.startswith("`") and last.endswith("`") and last.count("`") == 2, shown  # code, not a link


def test_the_model_selector_names_each_model_as_people_know_it() -> None:
    assert model_options(Scripted()) == [("the m model", "m")]


def test_a_reply_cut_short_comes_back_saying_so() -> None:
    turns = [
        TurnRecord("t1", "s", "tell me a story", "Once upon a time", T0, status="cancelled"),
        TurnRecord("t2", "s", "thanks", "You're welcome!", T0 + 1),
    ]
    cut, finished = history_messages(turns)[1], history_messages(turns)[3]
    assert cut["content"] == "Once upon a time\n\n_This reply was cut short before it finished._"
    assert finished["content"] == "You're welcome!"


def test_an_imported_reply_is_shown_as_the_other_assistants_never_as_daemons() -> None:
    turns = [
        TurnRecord("t1", "s", "I moved to Lisbon", "You live in Paris now?", T0, model="chatgpt export"),
        TurnRecord("t2", "s", "thanks", "You're welcome!", T0 + 1, model="smollm2"),
    ]
    imported, own = history_messages(turns)[1], history_messages(turns)[3]
    assert imported["content"] == "_ChatGPT replied (imported):_\n\nYou live in Paris now?"
    assert own["content"] == "You're welcome!"


def test_an_empty_table_is_told_apart_from_one_with_rows() -> None:
    import pandas as pd

    assert not has_rows([]) and not has_rows(None) and not has_rows([["", ""]])
    assert has_rows([["fact_1", "user"]])
    assert not has_rows(pd.DataFrame([["", ""]], columns=["a", "b"]))
    assert has_rows(pd.DataFrame([["x", ""]], columns=["a", "b"]))
