"""What the orchestrator knows about the message being answered, handed to the agent's tool gate and guards.

The agent is reached through generation modes (best-of, duel, planned, uncertainty retry) whose `run`
takes only the messages, so the orchestrator does not thread these through every wrapper: it runs the
agent through `with_signals`, and the runner reads `current_signals()` when it starts. A
`ContextVar` is request-scoped state, not shared state: each asyncio task sees the value of the context it
was started in, so two turns running at once (the GUI and an API call) never see each other's signals, and
a runner used outside a turn (tests, benchmarks) sees None and falls back to what the messages say.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from core.relations import fact_sentence

if TYPE_CHECKING:
    from core.turn_context import TurnContext

T = TypeVar("T")
_CURRENT: ContextVar[TurnSignals | None] = ContextVar("daemon_turn_signals", default=None)


@dataclass(frozen=True)
class TurnSignals:
    """One message as the context pipeline read it, and the private text the turn's context holds.

    Attributes:
        intent: the message's intent (`core/pipeline/intent.py`; "" when not analysed).
        speech_act: "question", "request", "statement" or "fragment" ("" when not analysed).
        entities: knowledge-graph entities the message names (display names).
        private_texts: the user's memories, facts and graph sentences the prompt carries: a tool call that
            would send them out is blocked (core/agent/exfiltration.py).
    """

    intent: str = ""
    speech_act: str = ""
    entities: tuple[str, ...] = ()
    private_texts: tuple[str, ...] = ()


def current_signals() -> TurnSignals | None:
    """The signals of the turn this task is answering, or None outside a turn."""
    return _CURRENT.get()


async def with_signals(events: AsyncIterator[T], signals: TurnSignals) -> AsyncGenerator[T, None]:
    """`events` (an agent run) with `signals` current while each of its steps runs, and only then: the
    value is set and reset inside one step, so it never leaks into the caller between events."""
    try:
        while True:
            token = _CURRENT.set(signals)
            try:
                event = await anext(events)
            except StopAsyncIteration:
                return
            finally:
                _CURRENT.reset(token)
            yield event
    finally:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:  # close the agent's generator now, as `aclosing` would have
            await aclose()


def signals_from(context: TurnContext) -> TurnSignals:
    """The signals of a gathered turn: its reading of the message and the private text its prompt holds."""
    analysis = context.analysis
    private = [
        *(fact_sentence(f.subject, f.predicate, f.object) for f in context.profile),
        *(m.text for m in context.memories),
        *(m.text for records in context.latest.values() for m in records),
        *context.graph.sentences,
    ]
    return TurnSignals(
        intent=analysis.intent if analysis else "",
        speech_act=analysis.speech_act if analysis else "",
        entities=tuple(context.graph.entities),
        private_texts=tuple(private),
    )
