"""Per-turn storage into `conversations`: idempotent, repaired after a crash, never duplicated."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.collections import COLLECTIONS, CONVERSATIONS
from memory.embeddings import HashingEmbedder
from memory.importance import turn_importance
from memory.inmemory_store import InMemoryStore
from memory.journal import Journal
from memory.turn_index import TurnIndexer, conversation_id
from memory.vector_store import Record

Parts = tuple[Journal, InMemoryStore, TurnIndexer]


@pytest.fixture
def parts(tmp_path: Path) -> Parts:
    journal = Journal(tmp_path / "j.sqlite3")
    store = InMemoryStore(HashingEmbedder())
    store.ensure_collections(COLLECTIONS)
    return journal, store, TurnIndexer(lambda records: store.upsert(CONVERSATIONS, records), journal)


def finished_turn(journal: Journal, session: str, user: str, answer: str) -> str:
    turn_id = journal.begin_turn(session, user)
    journal.complete_turn(turn_id, answer, model="m")
    return turn_id


def test_indexed_turn_carries_its_journal_id_and_provenance(parts: Parts) -> None:
    journal, store, indexer = parts
    session = journal.new_session()
    turn_id = finished_turn(journal, session, "My sister Ana lives in Porto", "Noted!")
    assert indexer.repair() == 1
    [record] = store.get(CONVERSATIONS, ids=[conversation_id(turn_id)])
    assert record.text == "User: My sister Ana lives in Porto\nAssistant: Noted!"
    assert record.metadata["turn_id"] == turn_id and record.metadata["session_id"] == session
    importance = record.metadata["importance"]
    assert record.metadata["model"] == "m" and isinstance(importance, float) and importance > 0.5


def test_crash_between_store_write_and_mark_is_repaired_without_duplicates(parts: Parts) -> None:
    journal, store, indexer = parts
    session = journal.new_session()
    ids = [finished_turn(journal, session, f"message {i}", "ok") for i in range(3)]
    # Simulate the crash: the store write happened, the journal mark did not.
    store.upsert(CONVERSATIONS, [indexer_record for indexer_record in _records(journal)])
    assert store.count(CONVERSATIONS) == 3
    assert indexer.repair() == 3  # written again under the same ids
    assert store.count(CONVERSATIONS) == 3
    assert indexer.repair() == 0  # nothing left to do
    assert {r.id for r in store.get(CONVERSATIONS)} == {conversation_id(t) for t in ids}


def test_pending_and_failed_turns_are_not_indexed(parts: Parts) -> None:
    journal, store, indexer = parts
    session = journal.new_session()
    journal.begin_turn(session, "still thinking")
    failed = journal.begin_turn(session, "broke")
    journal.complete_turn(failed, "", status="failed")
    assert indexer.repair() == 0 and store.count(CONVERSATIONS) == 0


def test_importance_ranks_disclosures_over_small_talk() -> None:
    assert turn_importance("hello") < turn_importance("what's the weather like")
    assert turn_importance("what's the weather like") < turn_importance(
        "Remember that my daughter's birthday is on June 3rd"
    )


def _records(journal: Journal) -> list[Record]:
    from memory.turn_index import turn_record

    return [turn_record(t) for t in journal.unindexed_turns()]
