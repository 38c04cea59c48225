"""The staleness cascade: a summary written from a fact goes stale when the fact is corrected, and says so.

Real parts throughout: the memory service over the in-memory store, the fact store and claim index on
SQLite, the block-summary step, the conversation memory port and the prompt's memory block.
"""

from __future__ import annotations

import json
from pathlib import Path

from core.ports import ExtractedFact, TurnRecord
from core.prompt.assembly import render_section
from core.prompt.sources import memory_sections
from core.turn_context import STALE_PREFIX, SUPERSEDED_PREFIX, TurnContext
from memory.embeddings import HashingEmbedder
from memory.facts.claims import ClaimIndex
from memory.facts.service import FactMemory
from memory.facts.store import FactStore
from memory.facts.verification import FactVerifier
from memory.inmemory_store import InMemoryStore
from memory.journal import Journal
from memory.port import ConversationMemory
from memory.service import MemoryService
from memory.shutdown.processor import StepContext
from memory.shutdown.summaries import SUMMARIES, BlockSummarizer, BlockSummaryStep
from memory.turn_index import TurnIndexer
from tests.unit.memory.profile_helpers import committed_profiles

T0 = 1_700_000_000.0


def fact(p: str, o: str) -> ExtractedFact:
    return ExtractedFact("I", p, o, "location", "user", f"I {p} {o}", 0.9)


def context(session: str, turns: list[TurnRecord]) -> StepContext:
    return StepContext(session, tuple(turns), False, 10.0, T0 + 10.0, {}, 1, lambda: T0)


async def test_a_summary_citing_a_corrected_fact_is_stale_and_prefixed(tmp_path: Path) -> None:
    memory = MemoryService(InMemoryStore(HashingEmbedder(256)), committed_profiles(), clock=lambda: T0)
    memory.open()
    facts = FactMemory(
        FactStore(tmp_path / "facts.sqlite3"),
        FactVerifier(),
        index=lambda r: memory.add("facts", r),
        claims=ClaimIndex(tmp_path / "claims.sqlite3"),
        restamp=memory.update_metadata,
    )
    journal = Journal(tmp_path / "j.sqlite3", clock=lambda: T0)
    session = journal.new_session()
    said = journal.complete_turn(journal.begin_turn(session, "I live in Boston, near the harbour."), "Nice!")
    await facts.record([fact("live in", "Boston")], said)
    step = BlockSummaryStep(memory.add, memory.update_metadata, facts, BlockSummarizer())
    result = await step.run(context(session, [said]))
    assert result == {"summaries": 1, "by_model": 0, "claims": 1}
    [summary] = memory.store.get(SUMMARIES)
    assert summary.metadata["staleness_ratio"] == 0.0 and "Boston" in summary.text
    source_ids = summary.metadata["source_ids"]
    assert isinstance(source_ids, str)
    assert json.loads(source_ids) == [f"conv_{said.turn_id}"]  # backlink to the turn

    correction = TurnRecord("t-fix", session, "Actually I moved to Denver.", "Got it.", T0 + 60)
    outcome = await facts.record([fact("moved to", "Denver")], correction, correcting=True)
    assert [f.object for f in outcome.superseded] == ["Boston"]
    [summary] = memory.store.get(SUMMARIES)
    assert summary.metadata["staleness_ratio"] == 1.0
    assert summary.metadata["stale_claims"] == summary.metadata["claims"]

    port = ConversationMemory(memory, TurnIndexer(memory.write_turns, journal), clock=lambda: T0 + 120)
    recalled = await port.recall("where did I live near the harbour", session, 5)
    [stale] = [m for m in recalled if m.collection == SUMMARIES]
    assert stale.staleness == 1.0
    sections = memory_sections(TurnContext("where did I live", memories=(stale,), now=T0 + 120))
    rendered = render_section("RELEVANT SUMMARIES", sections["semantic_summaries"].items)
    assert f"[M1] {STALE_PREFIX} (" in rendered and "Conversation of" in rendered


async def test_a_summary_of_a_later_value_does_not_go_stale(tmp_path: Path) -> None:
    """Claims are facts, not (subject, relation) pairs: summarising "Denver" is not outdated by Boston."""
    claims = ClaimIndex(tmp_path / "claims.sqlite3", clock=lambda: T0)
    claims.register("sum_a", SUMMARIES, ["fact_boston", "fact_jo"])
    claims.register("sum_b", SUMMARIES, ["fact_denver"])
    changed = claims.mark_stale(["fact_boston"], at=T0 + 1)
    assert [(d.doc_id, d.ratio) for d in changed] == [("sum_a", 0.5)]
    assert claims.staleness("sum_b").ratio == 0.0
    claims.register("sum_c", SUMMARIES, ["fact_boston"])
    again = claims.mark_stale(["fact_boston"], at=T0 + 2)
    assert [d.doc_id for d in again] == ["sum_c"]  # sum_a was already stale: not restamped twice


async def test_a_superseded_fact_is_recalled_as_history_not_as_the_present(tmp_path: Path) -> None:
    memory = MemoryService(InMemoryStore(HashingEmbedder(256)), committed_profiles(), clock=lambda: T0)
    memory.open()
    store = FactStore(tmp_path / "facts.sqlite3")
    facts = FactMemory(store, FactVerifier(), index=lambda r: memory.add("facts", r))
    journal = Journal(tmp_path / "j.sqlite3", clock=lambda: T0)
    session = journal.new_session()
    said = journal.complete_turn(journal.begin_turn(session, "I live in Boston."), "Nice!")
    await facts.record([fact("live in", "Boston")], said)
    correction = TurnRecord("t-fix", session, "Actually I moved to Denver.", "Got it.", T0 + 60)
    await facts.record([fact("moved to", "Denver")], correction, correcting=True)

    port = ConversationMemory(memory, TurnIndexer(memory.write_turns, journal), clock=lambda: T0 + 120)
    recalled = [m for m in await port.recall("where do I live", session, 5) if m.collection == "facts"]
    assert {m.text: m.superseded for m in recalled} == {
        "The user lives in Boston.": True,
        "The user lives in Denver.": False,
    }
    sections = memory_sections(TurnContext("where do I live", memories=tuple(recalled), now=T0 + 120))
    rendered = render_section("RELEVANT INFORMATION", sections["relevant_information"].items)
    assert f"{SUPERSEDED_PREFIX} (" in rendered
    [old] = [line for line in rendered.splitlines() if "Boston" in line]
    [new] = [line for line in rendered.splitlines() if "Denver" in line]
    assert SUPERSEDED_PREFIX in old and SUPERSEDED_PREFIX not in new
