"""The terminal says which of the two answered: the model, or Daemon's memory (the extractive answerer)."""

from __future__ import annotations

import io

from core.events import Done, TextDelta
from ui.terminal.chat import TurnPrinter


def printed(done: Done) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    printer = TurnPrinter(out, err)
    printer(TextDelta(done.answer))
    printer(done)
    return out.getvalue(), err.getvalue()


def test_a_reply_from_memory_says_so() -> None:
    answer = "You told me on 3 Dec: you work at Bluefin Audio. [M1]"
    done = Done(answer=answer, extra={"answered_by": "memory"})
    out, err = printed(done)
    assert out.startswith("You told me") and "answered from memory" in err


def test_a_model_reply_carries_no_memory_label() -> None:
    out, err = printed(Done(answer="Hello!"))
    assert out == "Hello!\n" and "memory" not in err
