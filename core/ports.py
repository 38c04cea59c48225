"""Protocols the core needs from the outer layers (memory, knowledge). Core never imports those packages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class TurnRecord:
    """One user turn as stored in the journal. `status` is pending, complete, cancelled or failed."""

    turn_id: str
    session_id: str
    user: str
    assistant: str
    created_at: float
    status: str = "complete"
    model: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0


@dataclass(frozen=True)
class SessionRecord:
    session_id: str
    created_at: float
    last_active_at: float
    turns: int


class ConversationLog(Protocol):
    """The durable turn journal: what the user wrote is on disk before the model is even called."""

    def new_session(self) -> str: ...

    def begin_turn(self, session_id: str, user_text: str) -> str: ...

    def complete_turn(
        self,
        turn_id: str,
        assistant_text: str,
        *,
        status: str = "complete",
        model: str = "",
        usage: dict[str, Any] | None = None,
        tool_calls: list[dict[str, Any]] | None = None,
        citations: list[dict[str, Any]] | None = None,
    ) -> TurnRecord: ...

    def recent_turns(self, session_id: str, limit: int) -> list[TurnRecord]: ...

    def turns(self, session_id: str | None = None, limit: int | None = None) -> list[TurnRecord]: ...

    def sessions(self) -> list[SessionRecord]: ...


@dataclass(frozen=True)
class RecalledMemory:
    """A long-term memory the model should see for this turn."""

    id: str
    collection: str
    text: str
    score: float
    created_at: float | None = None


class MemoryPort(Protocol):
    """Long-term memory as the orchestrator sees it."""

    async def recall(
        self,
        query: str,
        session_id: str,
        limit: int,
        intent: str = "general",
        shown_turn_ids: frozenset[str] = frozenset(),
    ) -> list[RecalledMemory]:
        """Memories for the query, leaving out the journal turns the prompt already shows."""
        ...

    async def remember(self, turn: TurnRecord) -> None: ...
