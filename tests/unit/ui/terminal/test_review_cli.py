"""`review`: approving hides from search (nothing deleted) and retires a contradicted fact; undo restores."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from core.ports import ExtractedFact, TurnRecord
from memory.candidates import QueryContext
from memory.dedup import DedupScanner, DedupSettings
from memory.embeddings import HashingEmbedder
from memory.facts.service import FactMemory
from memory.facts.store import FactStore
from memory.facts.verification import SINGLE_VALUED, FactVerifier
from memory.inmemory_store import InMemoryStore
from memory.review import ReviewQueue
from memory.service import MemoryService
from tests.unit.memory.profile_helpers import committed_profiles
from ui.terminal.review import review_command

T0 = 1_700_000_000.0


def args(**kw: object) -> argparse.Namespace:
    return argparse.Namespace(**{"json": False, "keep": None, "item": None, **kw})


async def test_resolving_a_contradiction_hides_and_retires_and_undo_restores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queue = ReviewQueue(tmp_path / "review.sqlite3")
    store = InMemoryStore(HashingEmbedder(256))
    memory = MemoryService(store, committed_profiles(), hidden=queue.hidden.hidden_ids)
    memory.open()
    fact_store = FactStore(tmp_path / "facts.sqlite3")
    facts = FactMemory(fact_store, FactVerifier(), index=lambda r: memory.add("facts", r))
    said = ExtractedFact("Jo", "lives in", "Boston", "family", "entity", "Jo lives in Boston", 0.9)
    await facts.record([said], TurnRecord("t1", "s", "", "", T0))
    # A contradiction that slipped past the gate (e.g. two sessions' model facts): same subject and relation.
    other = ExtractedFact("Jo", "lives in", "Paris", "family", "entity", "Jo lives in Paris", 0.9)
    await facts.record([other], TurnRecord("t2", "s", "", "", T0 + 1))
    facts.set_current(facts.list_facts()[0].id, True, "test: both current")
    scanner = DedupScanner(queue, DedupSettings(contradiction_predicates=frozenset(SINGLE_VALUED)))
    assert queue.propose(scanner.scan_store(memory.store, ["facts"])) == 1
    [item] = queue.open_items()

    review_command("approve", queue, memory, facts, args(item=item.id))  # keeps the newest: Paris
    status = {f.object: f.status for f in facts.list_facts()}
    assert status == {"Boston": "superseded", "Paris": "current"}
    assert len(memory.store.get("facts")) == 2  # hidden, not deleted
    found = await memory.search(QueryContext(query="where does Jo live", now=T0 + 5), k=5)
    assert [m.text for m in found if m.collection == "facts"] == ["Jo lives in Paris."]

    review_command("undo", queue, memory, facts, args(item=item.id))
    assert {f.object: f.status for f in facts.list_facts()} == {"Boston": "current", "Paris": "current"}
    found = await memory.search(QueryContext(query="where does Jo live", now=T0 + 5), k=5)
    shown = sorted(m.text for m in found if m.collection == "facts")
    assert shown == ["Jo lives in Boston.", "Jo lives in Paris."]
    assert "undone" in capsys.readouterr().out


async def test_purge_needs_confirmation_and_removes_only_what_was_hidden(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from memory.vector_store import Record

    queue = ReviewQueue(tmp_path / "review.sqlite3")
    store = InMemoryStore(HashingEmbedder(256))
    memory = MemoryService(store, committed_profiles(), hidden=queue.hidden.hidden_ids)
    memory.open()
    text = "Jo adopted a grey cat called Miso."
    twins = [Record("s1", text, {"created_at": T0}), Record("s2", text, {"created_at": T0 + 1})]
    memory.add("summaries", twins)
    memory.add("summaries", [Record("s3", "Unrelated: the router needs a reset.", {"created_at": T0})])
    queue.propose(DedupScanner(queue).scan_store(memory.store, ["summaries"]))
    [item] = queue.open_items()
    assert review_command("purge", queue, memory, None, args(yes=False)) == 0  # nothing approved yet
    review_command("approve", queue, memory, None, args(item=item.id, keep="s2"))
    assert review_command("purge", queue, memory, None, args(yes=False)) == 1  # asks for --yes
    assert {r.id for r in memory.store.get("summaries")} == {"s1", "s2", "s3"}
    assert review_command("purge", queue, memory, None, args(yes=True)) == 0
    assert {r.id for r in memory.store.get("summaries")} == {"s2", "s3"}
    assert "purged 1 record(s)" in capsys.readouterr().out
