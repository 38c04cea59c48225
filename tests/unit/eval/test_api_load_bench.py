"""`bench api`'s journal check finds every way sessions can go wrong (so its "isolated" can fail)."""

from __future__ import annotations

from core.ports import TurnRecord
from eval.benchmarks.api_load_bench import _journal_problems, _message


def turns(layout: dict[str, list[tuple[int, int]]], status: str = "complete") -> list[TurnRecord]:
    made, seq = [], 0
    for session, messages in layout.items():
        for client, turn in messages:
            seq += 1
            made.append(TurnRecord(f"t{seq}", session, _message(client, turn), "ok", 0.0, status, seq=seq))
    return made


def test_each_client_in_its_own_session_in_order_is_clean() -> None:
    held = turns({"a": [(0, 1), (0, 2)], "b": [(1, 1), (1, 2)]})
    held.append(TurnRecord("w", "warm", "Hello.", "Hello.", 0.0, seq=99))  # the warm-up holds no canary
    assert _journal_problems(held, clients=2, per_client=2) == []


def test_mixed_sessions_missing_doubled_and_unanswered_turns_are_each_found() -> None:
    mixed = _journal_problems(turns({"a": [(0, 1), (1, 1)], "b": [(0, 2), (1, 2)]}), 2, 2)
    assert mixed[0] == "session a holds the messages of clients [0, 1]"
    missing = _journal_problems(turns({"a": [(0, 1)], "b": [(1, 1), (1, 2)]}), 2, 2)
    assert missing == ["client 0's session holds its messages [1], not 1 to 2"]
    doubled = _journal_problems(turns({"a": [(0, 1), (0, 1)]}), 1, 2)
    assert doubled == ["client 0's session holds its messages [1, 1], not 1 to 2"]
    assert "client 0 is in two sessions" in _journal_problems(turns({"a": [(0, 1)], "b": [(0, 2)]}), 1, 2)
    unanswered = _journal_problems(turns({"a": [(0, 1)]}, status="failed"), 2, 1)
    assert unanswered == ["client 0 has an unanswered turn", "clients [1] have no session"]
