"""Sessions' state on disk: round trip, a restart reopens it, a transaction per update, readers only read."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from core.errors import StorageError
from core.pipeline.session_state import MessageReading, advance, settle
from core.ports import SessionState
from memory.session_state_store import SESSION_STATE_FILE, SessionStateDB, decode, encode, read_session_states

DISTRESS = MessageReading("I can't cope anymore", "elevated", "emotional_support", 0.9, ("work",))


def answered(state: SessionState) -> SessionState:
    return settle(advance(state, DISTRESS), DISTRESS.text, "That sounds so hard. I'm here.", "complete")


def test_a_state_round_trips_through_json_with_every_field() -> None:
    state = answered(answered(SessionState()))
    state = replace(state, open_questions=("Where did I park?",), pending_suggestion=("breath", "slow"))
    assert decode(encode(state)) == state
    assert decode(encode(SessionState())) == SessionState()  # None and empty tuples too


def test_keys_the_code_does_not_know_are_ignored_and_missing_ones_take_defaults() -> None:
    assert decode('{"escalation_state": "quiet_companionship", "mood_v2": 3}') == SessionState(
        escalation_state="quiet_companionship"
    )


@pytest.mark.parametrize(
    "text", ["[1, 2]", '{"escalation_state": "panicking"}', '{"turns": "three"}', '{"tones": "elevated"}']
)
def test_a_row_that_is_not_a_state_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        decode(text)


def test_the_state_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / SESSION_STATE_FILE
    store = SessionStateDB(path)
    assert store.load("s1") is None
    for _ in range(3):
        stored = store.update("s1", answered)
    store.close()
    reopened = SessionStateDB(path)  # a new process: the same file
    assert reopened.load("s1") == stored
    assert stored.escalation_state == "grounding_presence" and stored.turns == 3
    assert reopened.load("s2") is None
    reopened.close()


def test_the_file_is_durable_and_its_columns_readable(tmp_path: Path) -> None:
    store = SessionStateDB(tmp_path / SESSION_STATE_FILE, clock=lambda: 42.0)
    assert store._db.pragma("journal_mode") == "wal"
    assert store._db.pragma("synchronous") == 2  # FULL
    store.update("s1", answered)
    store.close()
    db = sqlite3.connect(tmp_path / SESSION_STATE_FILE)
    row = db.execute(
        "SELECT escalation_state, turns_in_state, turns, updated_at FROM session_state"
    ).fetchone()
    assert row == ("validate_and_suggest", 1, 1, 42.0)
    db.close()


def test_an_unreadable_row_starts_the_session_afresh(tmp_path: Path) -> None:
    store = SessionStateDB(tmp_path / SESSION_STATE_FILE)
    store.update("s1", answered)
    with store._db.write() as db:
        db.execute("UPDATE session_state SET state_json = '{not json'")
    assert store.load("s1") is None
    assert store.update("s1", answered).turns == 1
    store.close()


def test_a_failing_change_stores_nothing(tmp_path: Path) -> None:
    store = SessionStateDB(tmp_path / SESSION_STATE_FILE)
    before = store.update("s1", answered)

    def broken(state: SessionState) -> SessionState:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        store.update("s1", broken)
    assert store.load("s1") == before
    store.close()


def test_concurrent_turns_of_one_session_each_count(tmp_path: Path) -> None:
    store = SessionStateDB(tmp_path / SESSION_STATE_FILE)

    def turns() -> None:
        for _ in range(25):
            store.update("s1", answered)

    threads = [threading.Thread(target=turns) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = store.load("s1")
    assert stored is not None and stored.turns == 100 and stored.distress_streak == 100
    store.close()


def test_a_reader_beside_the_owner_sees_the_state_and_cannot_write(tmp_path: Path) -> None:
    assert read_session_states(tmp_path) is None  # nothing stored yet: no file is created
    assert not (tmp_path / SESSION_STATE_FILE).exists()
    owner = SessionStateDB(tmp_path / SESSION_STATE_FILE)
    stored = owner.update("s1", answered)
    reader = read_session_states(tmp_path)
    assert reader is not None and reader.load("s1") == stored
    with pytest.raises(StorageError):
        reader.update("s1", answered)
    assert owner.load("s1") == stored
    reader.close()
    owner.close()
