"""What the command-line front ends need from the orchestrator and the stores, whichever process holds them.

`ask`, `history`, `cli`, `memory` and `facts` render what these return. In the process that owns the data
dir they are the orchestrator and the stores the composition root built; beside a running Daemon they are
ui/attach/client.py's proxies, which fetch the same objects from it. Same renderers, same output.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from core.events import RunEvent
from core.ports import FactView, TurnRecord
from memory.candidates import QueryContext, ScoredMemory


class Conversation(Protocol):
    """The part of `core.orchestrator.Orchestrator` the CLI and the control routes use."""

    default_model: str

    @property
    def model_names(self) -> list[str]: ...

    def describe_model(self, name: str) -> str: ...

    def new_session(self) -> str: ...

    def history(self, session_id: str | None = None, limit: int | None = None) -> list[TurnRecord]: ...

    def run_turn(
        self,
        text: str,
        *,
        session_id: str | None = None,
        model: str | None = None,
        cancel: asyncio.Event | None = None,
    ) -> AsyncIterator[RunEvent]: ...


class Searchable(Protocol):
    """The part of `memory.service.MemoryService` `memory search|stats` use."""

    async def search(
        self, ctx: QueryContext, *, collections: Sequence[str] | None = None, k: int = 10
    ) -> list[ScoredMemory]: ...

    def stats(self) -> dict[str, int]: ...


class FactList(Protocol):
    """The part of `core.ports.FactPort` `facts list` uses."""

    def list_facts(self, status: str | None = None) -> list[FactView]: ...
