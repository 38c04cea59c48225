"""`analyze --session`: the escalation state the message would be answered under, and nothing stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from core.errors import UserInputError
from core.pipeline.analyzer import Analysis, ContextAnalyzer
from core.pipeline.intent import StmHint
from core.pipeline.session_state import MessageReading, advance, settle
from core.ports import SessionState, SessionStateStore
from memory.session_state_store import SESSION_STATE_FILE, SessionStateDB
from ui.terminal.analyze import analyze_command

CONTRACT = {"intent", "confidence", "tone", "topics", "entities", "rewritten_query"}


class DistressAnalyzer:
    def analyze(self, text: str, short_term: StmHint | None = None) -> Analysis:
        tone = "elevated" if "awful" in text else "conversational"
        return Analysis("emotional_support", 0.9, tone, 0.0, (), (), text, None)


def distress() -> ContextAnalyzer:
    """The fake stands in for the real analyzer, of which `analyze_command` uses only `analyze`."""
    return cast(ContextAnalyzer, DistressAnalyzer())


def answered(state: SessionState) -> SessionState:
    reading = MessageReading("awful", "elevated", "emotional_support", 0.9)
    return settle(advance(state, reading), "awful", "I'm here.", "complete")


def run(
    monkeypatch: pytest.MonkeyPatch, session_id: str | None = None, states: SessionStateStore | None = None
) -> dict[str, Any]:
    """The one JSON object `analyze --json` prints for "still awful"."""
    printed: list[dict[str, Any]] = []
    monkeypatch.setattr("ui.terminal.analyze.print_json", printed.append)
    assert (
        analyze_command(distress(), "still awful", None, as_json=True, session_id=session_id, states=states)
        == 0
    )
    assert len(printed) == 1
    return json.loads(json.dumps(printed[0]))  # as a consumer reads it


def test_without_a_session_the_contract_keys_and_no_escalation(monkeypatch: pytest.MonkeyPatch) -> None:
    result = run(monkeypatch)
    assert set(result) >= CONTRACT and "escalation" not in result


def test_with_a_session_the_state_after_this_message_is_reported_and_nothing_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionStateDB(tmp_path / SESSION_STATE_FILE)
    for _ in range(2):
        store.update("s1", answered)
    before = store._db.rows("SELECT * FROM session_state")
    result = run(monkeypatch, session_id="s1", states=store)
    assert set(result) >= CONTRACT
    assert result["escalation"] == {
        "state": "grounding_presence",
        "turns_in_state": 1,
        "recent_tones": ["elevated"] * 3,
    }
    assert run(monkeypatch, session_id="s1", states=store)["escalation"] == result["escalation"]
    assert store._db.rows("SELECT * FROM session_state") == before
    store.close()


def test_a_session_with_nothing_stored_starts_fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    escalation = run(monkeypatch, session_id="new", states=None)["escalation"]
    assert escalation == {"state": "validate_and_suggest", "turns_in_state": 1, "recent_tones": ["elevated"]}


def test_a_session_reads_one_message_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="--session"):
        analyze_command(distress(), None, tmp_path / "x.tsv", as_json=True, session_id="s1")
