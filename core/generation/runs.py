"""Running wrapped agents for the generation modes: quietly (a candidate), or relayed with text held back.

Every wrapped run ends in a `Candidate`: its `Done`, or the `RunError` it ended with (an exception the
agent raised becomes a `RunError` too, so a mode never raises for a model failure). Task cancellation is
never caught: `CancelledError` propagates as in the agent loop, and spawned tasks are cancelled with it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from core.cancel import cancel_and_wait, unless_cancelled
from core.events import Done, RunError, RunEvent, TextDelta, UsageUpdate
from core.prompt.sections import users_words
from core.streams import closing_stream
from core.types import Message, Usage

if TYPE_CHECKING:
    from core.orchestrator import Agent

log = logging.getLogger(__name__)

NO_END = "the model stopped without an answer"


@dataclass
class Candidate:
    """One wrapped run: filled in as its events arrive, so a cancelled run still reports its usage.

    `held` is answer text received but not shown yet (relayed runs only); `shown` says whether any text of
    this run already went out as `TextDelta` events.
    """

    label: str
    done: Done | None = None
    failure: RunError | None = None
    usage: Usage = Usage()
    held: str = ""
    shown: bool = False

    @property
    def ok(self) -> bool:
        """True for a finished, non-empty answer (a cancelled run is not one)."""
        return self.done is not None and self.done.exit_reason != "cancelled" and bool(self.answer.strip())

    @property
    def answer(self) -> str:
        return self.done.answer if self.done is not None else ""

    @property
    def model(self) -> str:
        return self.done.model if self.done is not None else ""

    @property
    def error(self) -> str:
        if self.failure is not None:
            return self.failure.message
        return "" if self.done is not None else NO_END

    def book(self, event: RunEvent) -> bool:
        """Record a terminal event or a usage update; True when the run has ended."""
        if isinstance(event, UsageUpdate):
            self.usage = event.total
        elif isinstance(event, Done):
            self.done, self.usage = event, event.usage
            return True
        elif isinstance(event, RunError):
            self.failure = event
            return True
        return False

    def crashed(self, exc: Exception) -> None:
        """The wrapped agent raised instead of ending with RunError (a bug in it): log, record, go on."""
        log.error("agent for candidate %s raised", self.label, exc_info=exc)
        self.failure = RunError("the model failed unexpectedly; the log has details", kind="internal")


async def collect(
    agent: Agent,
    messages: Sequence[Message],
    candidate: Candidate,
    *,
    cancel: asyncio.Event,
    max_tokens: int | None,
) -> None:
    """Run `agent` to its end without showing anything, recording the outcome in `candidate`."""
    try:
        async with closing_stream(agent.run(list(messages), cancel=cancel, max_tokens=max_tokens)) as events:
            async for event in events:
                if candidate.book(event):
                    return
    except Exception as exc:  # noqa: BLE001 - one candidate's bug must not sink the others
        candidate.crashed(exc)


async def collect_all(
    agents: Sequence[Agent],
    messages: Sequence[Message],
    candidates: Sequence[Candidate],
    *,
    cancel: asyncio.Event,
    max_tokens: int | None,
) -> None:
    """Run the agents concurrently, one per candidate; returns early (their tasks cancelled) on `cancel`.

    The agents get the cancel event too; racing it here as well keeps Stop working with an agent that
    ignores it.
    """
    tasks = [
        asyncio.ensure_future(collect(agent, messages, cand, cancel=cancel, max_tokens=max_tokens))
        for agent, cand in zip(agents, candidates, strict=True)
    ]
    try:
        # A coroutine, not the bare gather future: a cancelled gather future reports an exception rather
        # than being "cancelled", which `unless_cancelled` would re-raise.
        await unless_cancelled(_all(tasks), cancel)
    finally:
        for task in tasks:
            await cancel_and_wait(task)


async def _all(tasks: Sequence[asyncio.Future[None]]) -> None:
    await asyncio.gather(*tasks)


async def relay(
    agent: Agent,
    messages: Sequence[Message],
    candidate: Candidate,
    *,
    cancel: asyncio.Event,
    max_tokens: int | None,
    offset: Usage = Usage(),
    hold: Callable[[str], bool] | None = None,
) -> AsyncIterator[RunEvent]:
    """Run `agent`, yielding its events except the final `Done`/`RunError`, which go into `candidate`.

    Usage totals are shifted by `offset` (model calls this mode made before). Answer text is held back in
    `candidate.held` while `hold(held_text)` is true; once it is false the held text is released and the
    rest streams (a run that started streaming stays streaming).
    """
    try:
        async with closing_stream(agent.run(list(messages), cancel=cancel, max_tokens=max_tokens)) as events:
            async for event in events:
                if candidate.book(event):
                    return
                if isinstance(event, TextDelta):
                    if (released := _feed(candidate, event.text, hold)) is not None:
                        yield released
                else:
                    yield shifted(event, offset)
    except Exception as exc:  # noqa: BLE001 - a wrapped agent's bug ends this run with RunError
        candidate.crashed(exc)


def _feed(candidate: Candidate, text: str, hold: Callable[[str], bool] | None) -> TextDelta | None:
    if candidate.shown or hold is None:
        candidate.shown = True
        return TextDelta(text)
    candidate.held += text
    if hold(candidate.held):
        return None
    released, candidate.held, candidate.shown = candidate.held, "", True
    return TextDelta(released)


def shifted(event: RunEvent, offset: Usage) -> RunEvent:
    """`event` with its running usage total moved on by `offset`."""
    if isinstance(event, UsageUpdate) and offset != Usage():
        return UsageUpdate(call=event.call, total=offset + event.total)
    return event


def total_usage(candidates: Iterable[Candidate], *more: Usage) -> Usage:
    """Usage of every wrapped run plus the mode's own calls."""
    total = Usage()
    for usage in [*(c.usage for c in candidates), *more]:
        total = total + usage
    return total


def last_user_text(messages: Sequence[Message]) -> str:
    """The user's own words: after the query marker of an assembled prompt, else the last user message."""
    text = next((m.content for m in reversed(messages) if m.role == "user"), "")
    return users_words(text)


def with_note(messages: Sequence[Message], note: str) -> list[Message]:
    """`messages` with a system note placed just before the last user message (which stays last, so the
    agent loop still pins it and providers that want a user turn last get one)."""
    out = list(messages)
    at = next((i for i in range(len(out) - 1, -1, -1) if out[i].role == "user"), len(out))
    out.insert(at, Message("system", note))
    return out


def cancelled(usage: Usage, extra: dict[str, Any], answer: str = "") -> Done:
    """The end of a cancelled mode run; `answer` is what was shown (nothing, for a held mode)."""
    return Done(answer=answer, exit_reason="cancelled", usage=usage, extra=extra)


def all_failed(candidates: Sequence[Candidate]) -> RunError:
    """The error for a mode whose every model failed: the first failure's message names the cause."""
    first = next((c.failure for c in candidates if c.failure is not None), None)
    detail = first.message if first is not None else NO_END
    count = "the model" if len(candidates) == 1 else f"all {len(candidates)} models"
    return RunError(f"No answer: {count} failed ({detail})", kind=first.kind if first else "provider")


def answered(
    source: Done, answer: str, usage: Usage, extra: dict[str, Any], **changes: Any
) -> list[RunEvent]:
    """The final events of a held mode: the chosen answer as one `TextDelta`, then its `Done`."""
    done = replace(source, answer=answer, usage=usage, extra={**source.extra, **extra}, **changes)
    return [TextDelta(answer), done] if answer else [done]


def ending(run: Candidate, usage: Usage, extra: dict[str, Any]) -> list[RunEvent]:
    """The last events of a relayed run: its answer if it was held back, then its `Done` (with the mode's
    total `usage` and `extra`), or its `RunError`."""
    if run.done is None:
        return [run.failure or RunError(NO_END, kind="provider")]
    done = replace(run.done, usage=usage, extra={**run.done.extra, **extra})
    return [TextDelta(done.answer), done] if done.answer and not run.shown else [done]
