"""The durable turn journal."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.errors import StorageError, UserInputError
from memory.journal import Journal
from tests.unit.memory.journal_helpers import damaged_journal


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "journal.sqlite3")


def test_wal_and_full_sync_are_on(journal: Journal) -> None:
    db = sqlite3.connect(journal.path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # synchronous is per connection: check the journal's own connection.
    assert journal._db.pragma("synchronous") == 2  # FULL


def test_user_text_is_stored_before_the_answer(journal: Journal) -> None:
    session = journal.new_session()
    turn_id = journal.begin_turn(session, "remember the milk")
    pending = journal.turn(turn_id)
    assert pending is not None and pending.status == "pending" and pending.user == "remember the milk"
    done = journal.complete_turn(turn_id, "noted", model="m", usage={"input_tokens": 3})
    assert done.status == "complete" and done.assistant == "noted" and done.usage == {"input_tokens": 3}


def test_recent_turns_are_ordered_and_skip_pending_and_failed(journal: Journal) -> None:
    session = journal.new_session()
    ids = [journal.begin_turn(session, f"q{i}") for i in range(5)]
    for turn_id in ids[:3]:
        journal.complete_turn(turn_id, "a")
    journal.complete_turn(ids[3], "", status="failed")
    recent = journal.recent_turns(session, 2)
    assert [t.user for t in recent] == ["q1", "q2"]
    assert journal.recent_turns(session, 0) == []


def test_a_turns_previous_turn_is_the_last_answered_one_of_its_own_session(journal: Journal) -> None:
    session, other = journal.new_session(), journal.new_session()
    first = journal.begin_turn(session, "q1")
    journal.complete_turn(first, "a1")
    journal.complete_turn(journal.begin_turn(other, "elsewhere"), "x")
    journal.complete_turn(journal.begin_turn(session, "q2"), "", status="failed")
    third = journal.begin_turn(session, "q3")
    journal.complete_turn(third, "a3")
    before = journal.previous_turns([first, third, "no-such-turn"])
    assert set(before) == {third} and before[third].assistant == "a1"


def test_sessions_are_separate(journal: Journal) -> None:
    a, b = journal.new_session(), journal.new_session()
    journal.complete_turn(journal.begin_turn(a, "in a"), "x")
    journal.complete_turn(journal.begin_turn(b, "in b"), "y")
    assert [t.user for t in journal.turns(a)] == ["in a"]
    assert {s.session_id for s in journal.sessions()} == {a, b}
    assert len(journal.turns()) == 2


def test_reopen_keeps_everything_and_does_not_rerun_migrations(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite3"
    first = Journal(path)
    session = first.new_session()
    first.complete_turn(first.begin_turn(session, "hello"), "hi")
    first.close()
    second = Journal(path)
    assert [t.assistant for t in second.turns(session)] == ["hi"]


def test_oversized_message_is_refused_and_nothing_is_written(journal: Journal) -> None:
    session = journal.new_session()
    with pytest.raises(UserInputError, match="limit"):
        journal.begin_turn(session, "x" * 300_000)
    assert journal.turns(session) == []


def test_completing_an_unknown_turn_is_an_error(journal: Journal) -> None:
    with pytest.raises(StorageError):
        journal.complete_turn("nope", "x")


def test_corrupt_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StorageError, match="cannot open the journal"):
        Journal(path)


def test_a_read_only_journal_sees_the_writers_turns_as_they_commit(journal: Journal) -> None:
    session = journal.new_session()
    journal.complete_turn(journal.begin_turn(session, "first"), "one")
    reader = Journal(journal.path, read_only=True)
    assert [t.user for t in reader.turns(session)] == ["first"]
    journal.complete_turn(journal.begin_turn(session, "second"), "two")  # the writer keeps writing
    assert [t.user for t in reader.turns(session)] == ["first", "second"]
    with pytest.raises(StorageError, match="cannot write the journal"):
        reader.new_session()
    assert [t.user for t in journal.turns(session)] == ["first", "second"]


def test_a_read_only_journal_refuses_a_file_that_needs_migrating(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at REAL)")
    db.commit()
    db.close()
    with pytest.raises(StorageError, match="needs an upgrade"):
        Journal(path, read_only=True)
    with pytest.raises(StorageError, match="cannot open the journal"):
        Journal(tmp_path / "absent.sqlite3", read_only=True)
    assert not (tmp_path / "absent.sqlite3").exists()


def test_a_damaged_page_is_a_storage_error_on_read_too(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    damaged_journal(path)
    reader = Journal(path, read_only=True)
    with pytest.raises(StorageError, match=f"cannot read the journal at {path}: .*malformed"):
        reader.turns()
    reader.close()


def test_a_turn_left_pending_by_a_dead_process_is_offered_once_as_unanswered(journal: Journal) -> None:
    session = journal.new_session()
    journal.complete_turn(journal.begin_turn(session, "hello"), "hi")
    cut_off = journal.begin_turn(session, "what is my sister's name?")  # the process dies here
    assert journal.interrupt_pending() == 1
    turn = journal.turn(cut_off)
    assert turn is not None and turn.status == "interrupted" and turn.assistant == ""
    assert [(t.user, t.status) for t in journal.recent_turns(session, 5)] == [
        ("hello", "complete"),
        ("what is my sister's name?", "interrupted"),
    ]
    assert [t.user for t in journal.recent_turns(session, 1)] == ["what is my sister's name?"]
    journal.complete_turn(journal.begin_turn(session, "are you there?"), "yes")  # the next turn saw it
    assert [t.user for t in journal.recent_turns(session, 5)] == ["hello", "are you there?"]
    assert journal.interrupt_pending() == 0
