"""The chat page's logic, free of Gradio: turn events into chat messages and status lines.

`ChatController` streams one turn from `Orchestrator.run_turn` as `ChatUpdate`s (chatbot, textbox, status);
`ui.gui.app` wires it to components. Unit tests drive it directly, without a browser or a server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from core.errors import DaemonError, StorageError
from core.events import (
    Done,
    Progress,
    RunError,
    RunEvent,
    TextDelta,
    ToolCallEnded,
    ToolCallStarted,
    UsageUpdate,
)
from core.streams import closing_stream
from core.text import clip
from ui.shared import render
from ui.shared.boundary import is_blank, user_text
from ui.shared.failures import full_disk

log = logging.getLogger(__name__)

BUSY = "A reply is still running: press Stop first."
STOPPING = "Stopping…"
THINKING = "Thinking…"


class ChatBackend(Protocol):
    """The part of `core.orchestrator.Orchestrator` the page uses."""

    default_model: str

    @property
    def model_names(self) -> list[str]: ...

    def describe_model(self, name: str) -> str: ...

    def new_session(self) -> str: ...

    def run_turn(
        self,
        text: str,
        *,
        session_id: str | None = None,
        model: str | None = None,
        cancel: asyncio.Event | None = None,
    ) -> AsyncIterator[RunEvent]: ...


@dataclass(frozen=True)
class ModeOption:
    """One generation mode a turn may ask for; `reason` says why not when it is unavailable."""

    mode: str
    reason: str = ""

    @property
    def available(self) -> bool:
        return not self.reason

    @property
    def label(self) -> str:
        name = mode_label(self.mode)
        return name if self.available else f"{name} (unavailable: {self.reason})"


CONFIGURED = ""  # the mode selector's value for "as configured" (the model's own agent)
MODE_LABELS = {
    "stream": "stream",
    "best_of": "best-of",
    "duel": "duel",
    "ensemble": "ensemble",
    "planned": "planned",
    "uncertainty_retry": "stream, memory re-checked",
    "extractive_recall": "from memory",
}


# The status line of a reply no model wrote (Done.extra["mode"]): what answered, in words.
ANSWERED_WITHOUT_MODEL = {
    "extractive_recall": "answered from your memory",
    "summary": "answered from your memory",
    "acknowledgement": "noted in your memory",
    "direct_tool": "answered by a built-in tool",
    "social": "a built-in reply",
    "care": "a built-in reply",
}


def offers_a_choice(options: Sequence[ModeOption]) -> bool:
    """Whether the mode selector has anything to offer: a mode besides plain streaming that can run (a
    list of modes that all say "unavailable" is clutter for someone with one small model)."""
    return any(option.mode != "stream" and not option.reason for option in options)


def mode_label(mode: str) -> str:
    """A mode's name for people (`best_of` -> `best-of`)."""
    return MODE_LABELS.get(mode, mode.replace("_", " "))


def mode_options(backend: Any, model: str | None) -> list[ModeOption]:
    """The modes the backend offers for `model` (none when it has no per-turn modes)."""
    modes = getattr(backend, "turn_modes", None)
    if modes is None:
        return []
    try:
        offered = modes(model or None)
    except DaemonError:  # an unknown model: the turn itself will say so
        return []
    return [ModeOption(mode, reason) for mode, reason in offered.items()]


def mode_choices(options: Sequence[ModeOption]) -> list[tuple[str, str]]:
    """(label, value) pairs for the selector: "as configured" first, then each mode, unavailable ones
    labelled with the reason (choosing one is refused by `requested_mode`)."""
    return [("as configured", CONFIGURED), *((option.label, option.mode) for option in options)]


def requested_mode(value: str | None, options: Sequence[ModeOption]) -> tuple[str | None, str | None]:
    """(mode to ask the backend for, refusal): None for "as configured"; an unavailable or unknown mode is
    refused with the reason, and the turn does not run."""
    if not value:
        return None, None
    for option in options:
        if option.mode == value:
            return (value, None) if option.available else (None, f"{option.label}.")
    return None, f"unknown mode {value!r}."


def answered_mode(done: Done, requested: str | None) -> str:
    """Which mode answered: the run's own word (`Done.extra["mode"]`), else the one asked for, else stream."""
    return mode_label(str(done.extra.get("mode") or requested or "stream"))


@dataclass
class ChatSession:
    """One browser tab's state. `cancel` is set while a turn runs; `epoch` changes on New chat."""

    session_id: str | None = None
    cancel: asyncio.Event | None = None
    epoch: int = 0


class ChatUpdate(NamedTuple):
    """New values for (chatbot, textbox, status); None leaves that component unchanged."""

    messages: list[dict[str, Any]] | None = None
    textbox: str | None = None
    status: str | None = None


def content_text(content: Any) -> str:
    """Text of a Chatbot message's content: Gradio 6 returns a list of parts, older values a string."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content.get("text") or content.get("alt_text") or "")
    if isinstance(content, list | tuple):
        return "\n".join(text for text in map(content_text, content) if text)
    return str(content)


def normalize_history(history: Sequence[Any] | None) -> list[dict[str, Any]]:
    """Chatbot value (as Gradio hands it to a handler) → message dicts with plain-string content."""
    messages = []
    for item in history or ():
        if not isinstance(item, dict):
            continue
        content = content_text(item.get("content"))
        message: dict[str, Any] = {"role": item.get("role", "assistant"), "content": content}
        metadata = {k: v for k, v in (item.get("metadata") or {}).items() if v is not None}
        if metadata.get("title"):
            message["metadata"] = metadata
        messages.append(message)
    return messages


@dataclass(frozen=True)
class StopAsked:
    """Marks the moment Stop was pressed in the event stream, so the turn's own stream (the one writer of
    the status line) shows "Stopping…" before its final status, never after it."""


@dataclass
class TurnView:
    """The chat messages of one turn in progress, rebuilt from the events seen so far."""

    user_text: str
    progress: str = THINKING
    stopping: bool = False
    parts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def status(self) -> str:
        """The status line while the turn runs; once Stop is pressed, that it is stopping."""
        return STOPPING if self.stopping else self.progress

    def apply(self, event: RunEvent | StopAsked) -> None:
        """Fold one event into the view (`Done`/`RunError` are handled by `finish`/the caller)."""
        if isinstance(event, StopAsked):
            self.stopping = True
        elif isinstance(event, TextDelta):
            if self.parts and self.parts[-1]["kind"] == "text":
                self.parts[-1]["text"] += event.text
            else:
                self.parts.append({"kind": "text", "text": event.text})
        elif isinstance(event, ToolCallStarted):
            title = "tool: " + render.format_tool_call(event.call)
            tool = {"kind": "tool", "id": event.call.id, "title": title, "status": "pending", "log": ""}
            self.parts.append(tool)
            self.progress = f"Running {event.call.name}…"
        elif isinstance(event, ToolCallEnded):
            self._tool_ended(event)
        elif isinstance(event, UsageUpdate):
            self.progress = render.format_usage(event.total) or self.progress
        elif isinstance(event, Progress):
            self.progress = f"{event.stage}: {event.detail}" if event.detail else event.stage

    def _tool_ended(self, event: ToolCallEnded) -> None:
        for part in reversed(self.parts):
            if part["kind"] == "tool" and part["id"] == event.call.id:
                part["status"] = "done"
                part["log"] = render.format_tool_result(event.ok, event.output, event.elapsed_ms)
                part["duration"] = event.elapsed_ms / 1000 if event.elapsed_ms else None
                return
        self.apply(ToolCallStarted(event.call))
        self._tool_ended(event)

    def finish(self, done: Done) -> None:
        """Make the shown answer the committed one and add its sources."""
        if done.answer and not (self.parts and self.parts[-1]["kind"] == "text"):
            self.parts.append({"kind": "text", "text": ""})
        if done.answer:
            self.parts[-1]["text"] = done.answer
        if not any(part["kind"] == "text" and part["text"].strip() for part in self.parts):
            notice = render.exit_notice(done.exit_reason) or "No answer."
            self.parts.append({"kind": "text", "text": f"_{notice}_"})
        sources = render.render_citations(done.citations)
        if sources:
            self.parts.append({"kind": "text", "text": "**Sources**\n\n" + sources.replace("\n", "  \n")})

    def messages(self) -> list[dict[str, Any]]:
        """Chatbot messages: the user's text, then tool lines and answer text in arrival order."""
        user = render.neutralize_remote_media(self.user_text)
        out: list[dict[str, Any]] = [{"role": "user", "content": user}]
        for part in self.parts:
            if part["kind"] == "text":
                if part["text"]:
                    out.append({"role": "assistant", "content": render.neutralize_remote_media(part["text"])})
                continue
            metadata = {"title": part["title"], "status": part["status"], "id": part["id"]}
            if part.get("duration") is not None:
                metadata["duration"] = round(part["duration"], 3)
            content = render.neutralize_remote_media(part["log"]) if part["log"] else ""
            out.append({"role": "assistant", "content": content, "metadata": metadata})
        return out


_END = object()


async def _pump(events: AsyncIterator[RunEvent], queue: asyncio.Queue[Any]) -> None:
    """Drive the run in one task of its own (providers' HTTP streams must not hop between tasks)."""
    try:
        async with closing_stream(events):
            async for event in events:
                queue.put_nowait(event)
    except Exception as error:  # handed to the reader, which raises it in the handler's task
        queue.put_nowait(error)
    finally:
        queue.put_nowait(_END)


async def _next_item(queue: asyncio.Queue[Any], cancel: asyncio.Event, grace_s: float) -> Any:
    """The next queued item, or `StopAsked` when `cancel` is set first; once `cancel` is set, wait at most
    `grace_s` (TimeoutError after that)."""
    if not queue.empty():
        return queue.get_nowait()
    getter = asyncio.ensure_future(queue.get())
    try:
        if not cancel.is_set():
            waiter = asyncio.ensure_future(cancel.wait())
            try:
                await asyncio.wait({getter, waiter}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiter.cancel()
            if not getter.done():
                return StopAsked()
        return await asyncio.wait_for(getter, None if getter.done() else grace_s)
    finally:
        getter.cancel()


async def _events_until_stopped(
    events: AsyncIterator[RunEvent], cancel: asyncio.Event, grace_s: float
) -> AsyncGenerator[RunEvent | StopAsked, None]:
    """Yield `events` (and `StopAsked` when Stop is pressed between two of them); once `cancel` is set,
    give the run `grace_s` per event to wind down, then drop it.

    Cancellation is cooperative (the agent sees the event and ends with `Done(exit_reason="cancelled")`);
    the grace period only guards the page against a run that ignores it.
    """
    queue: asyncio.Queue[Any] = asyncio.Queue()
    pump = asyncio.create_task(_pump(events, queue))
    told = False
    try:
        while True:
            if cancel.is_set() and not told:
                told = True
                yield StopAsked()
            try:
                item = await _next_item(queue, cancel, grace_s)
            except TimeoutError:
                log.warning("the run ignored Stop for %.0f s; dropping it", grace_s)
                return
            if isinstance(item, StopAsked):
                continue  # said at the top of the loop, once
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        if not pump.done():
            pump.cancel()
            await asyncio.wait({pump}, timeout=grace_s)


@dataclass(frozen=True)
class _Turn:
    """One submitted turn: what was asked, of which model, in which mode, and its Stop event."""

    text: str
    before: list[dict[str, Any]]
    session: ChatSession
    model: str | None
    mode: str | None
    cancel: asyncio.Event


class ChatController:
    """Page logic with plain values in and out; `build_app` adapts it to Gradio components."""

    def __init__(self, backend: ChatBackend, *, min_interval_s: float = 0.05, stop_grace_s: float = 10.0):
        self.backend = backend
        self.min_interval_s = min_interval_s
        self.stop_grace_s = stop_grace_s

    async def submit(
        self,
        text: str | None,
        history: Sequence[Any] | None,
        session: ChatSession,
        model: str | None,
        mode: str | None = None,
    ) -> AsyncGenerator[ChatUpdate, None]:
        """Run one turn and stream chat updates. An empty message or a busy session changes nothing.
        `mode` asks for a generation mode for this turn only (None: as configured)."""
        text = user_text(text or "")
        if is_blank(text):
            return
        if session.cancel is not None:
            yield ChatUpdate(status=BUSY)
            return
        cancel = session.cancel = asyncio.Event()
        turn = _Turn(text, normalize_history(history), session, model, mode, cancel)
        try:
            async for update in self._run(turn):
                yield update
        finally:
            if session.cancel is cancel:
                session.cancel = None

    async def _run(self, turn: _Turn) -> AsyncIterator[ChatUpdate]:
        text, before, session, cancel = turn.text, turn.before, turn.session, turn.cancel
        epoch, view, started = session.epoch, TurnView(text), time.monotonic()
        try:
            if session.session_id is None:
                session.session_id = await asyncio.to_thread(self.backend.new_session)
            yield ChatUpdate(before + view.messages(), "", THINKING)
            options = {"mode": turn.mode} if turn.mode else {}  # a backend without modes is never asked
            events = self.backend.run_turn(
                text, session_id=session.session_id, model=turn.model or None, cancel=cancel, **options
            )
            stream = _events_until_stopped(events, cancel, self.stop_grace_s)
            async with contextlib.aclosing(stream):
                last = 0.0
                async for event in stream:
                    if session.epoch != epoch:
                        return  # New chat was pressed: this turn's view is gone
                    if isinstance(event, RunError):
                        yield ChatUpdate(before, text, _error_status(event.message))
                        return
                    if isinstance(event, Done):
                        yield self._finished(turn, view, event, time.monotonic() - started)
                        return
                    view.apply(event)
                    if time.monotonic() - last >= self.min_interval_s or not isinstance(event, TextDelta):
                        last = time.monotonic()
                        yield ChatUpdate(before + view.messages(), None, view.status)
            if session.epoch == epoch:  # the run ended without Done: it ignored Stop and was dropped
                yield ChatUpdate(before + view.messages(), None, render.exit_notice("cancelled"))
        except DaemonError as error:
            if session.epoch == epoch:
                full = full_disk(error) if isinstance(error, StorageError) else None
                yield ChatUpdate(before, text, _error_status(f"{error}; {full}" if full else str(error)))
        except Exception as error:  # a user sees a message, never a traceback; the log keeps the details
            log.exception("chat turn failed")
            if session.epoch == epoch:
                said = full_disk(error) or "internal error; see the log for details"
                yield ChatUpdate(before, text, _error_status(said))

    @staticmethod
    def _finished(turn: _Turn, view: TurnView, done: Done, elapsed_s: float) -> ChatUpdate:
        view.finish(done)
        mode = answered_mode(done, turn.mode)
        if turn.mode and mode != "stream":  # a chosen panel mode is marked on the reply itself
            view.parts.append(
                {"kind": "text", "text": f"_answered in {mode} mode by {done.model or 'the model'}_"}
            )
        usage = render.format_usage(done.usage, model=done.model, elapsed_s=elapsed_s)
        parts = (render.exit_notice(done.exit_reason), f"mode: {mode}", usage)
        if (without := ANSWERED_WITHOUT_MODEL.get(str(done.extra.get("mode", "")))) is not None:
            parts = (render.exit_notice(done.exit_reason), without, f"{elapsed_s:.1f} s")
        return ChatUpdate(turn.before + view.messages(), None, " · ".join(part for part in parts if part))

    def stop(self, session: ChatSession) -> bool:
        """Ask the running turn to stop; False if nothing is running. The turn's stream shows
        "Stopping…" and then how it ended: the status line has that one writer, so a late "Stopping…"
        can never cover the final "Stopped."."""
        if session.cancel is None:
            return False
        session.cancel.set()
        return True

    def new_chat(self, session: ChatSession) -> ChatUpdate:
        """Clear the chat (a draft stays), drop the session (the next message gets a new id), stop any run."""
        if session.cancel is not None:
            session.cancel.set()
        session.session_id = None
        session.epoch += 1
        return ChatUpdate([], None, "")


def _error_status(message: str) -> str:
    return "⚠ " + render.neutralize_remote_media(clip(message, 300, one_line=True))
