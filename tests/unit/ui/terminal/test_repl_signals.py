"""A SIGTERM that arrives while the REPL is answering: the turn ends by its cancel path, the session-end
steps still run on the REPL's loop, and the process exits with 143."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import signal
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

import pytest

from core.events import Done, RunEvent, TextDelta
from core.ports import SessionLifecycle
from ui.shared.front_ports import Conversation
from ui.shared.termination import EXIT_CODE, install_termination
from ui.terminal.chat import Repl


class TerminatedMidTurn:
    """Stands in for the orchestrator: its turn is sent SIGTERM half-way and ends when cancelled."""

    default_model = "scripted"
    model_names = ["scripted"]

    def new_session(self) -> str:
        return "s1"

    async def run_turn(self, text: str, *, cancel: asyncio.Event, **_: Any) -> AsyncIterator[RunEvent]:
        yield TextDelta("I was saying")
        os.kill(os.getpid(), signal.SIGTERM)  # as `docker stop` would, while the turn is on the loop
        await asyncio.wait_for(cancel.wait(), timeout=10)
        yield Done(answer="I was saying", exit_reason="cancelled")


class TerminatedAsTheTurnEnds(TerminatedMidTurn):
    """The SIGTERM lands in the loop step right after the turn's last one, before the loop has stopped:
    the race `docker stop` hit in CI, which left the finished turn's "stop the loop" callback queued."""

    async def run_turn(self, text: str, *, cancel: asyncio.Event, **_: Any) -> AsyncIterator[RunEvent]:
        loop = asyncio.get_running_loop()
        loop.call_soon(loop.call_soon, os.kill, os.getpid(), signal.SIGTERM)  # queued after the last step
        await asyncio.sleep(0)
        yield Done(answer="Done already.")


class RecordingSessions:
    """Stands in for session-end processing: it takes a few loop steps, like the real steps."""

    def __init__(self) -> None:
        self.ended: list[str | None] = []

    async def end(self, session_id: str | None = None) -> dict[str, Any]:
        for _ in range(3):
            await asyncio.sleep(0)
        self.ended.append(session_id)
        return {"session_id": session_id, "complete": True, "steps": []}


@pytest.fixture
def termination() -> Iterator[None]:
    """The process's SIGTERM handling as `main.py` installs it, put back afterwards."""
    handler, hook = signal.getsignal(signal.SIGTERM), sys.unraisablehook
    install_termination()
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, handler)
        sys.unraisablehook = hook


def terminated(orchestrator: TerminatedMidTurn) -> tuple[int | str | None, list[str | None], str]:
    """Run the REPL for one turn that gets SIGTERM: its exit code, the sessions ended, what it printed."""
    sessions = RecordingSessions()
    repl = Repl(cast(Conversation, orchestrator), sessions=cast(SessionLifecycle, sessions))
    lines = iter(["tell me something"])
    out = io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(out),
        pytest.raises(SystemExit) as leaving,
    ):
        repl.run(read=lambda _: next(lines))
    handler = signal.getsignal(signal.SIGTERM)
    assert callable(handler) and handler.__name__ == "_terminate"  # the process's own handling is back
    return leaving.value.code, sessions.ended, out.getvalue()


def test_sigterm_mid_turn_cancels_it_then_ends_the_session_and_exits_143(termination: None) -> None:
    code, ended, printed = terminated(TerminatedMidTurn())
    assert code == EXIT_CODE and ended == ["s1"]  # the steps ran to the end on the loop the turn used
    assert "Saving what this session taught me" in printed and "[cancelled]" in printed


def test_sigterm_as_the_turn_ends_still_lets_the_session_end_steps_finish(termination: None) -> None:
    code, ended, printed = terminated(TerminatedAsTheTurnEnds())
    assert code == EXIT_CODE and ended == ["s1"], printed
    assert "Done already." in printed and "Saved the conversation." in printed
