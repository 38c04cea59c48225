"""Command-line front ends: `ask` (one turn), `history`, and the interactive REPL (`cli`).

They only call the orchestrator handed in by the composition root; nothing here builds services.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from collections.abc import Callable, Coroutine
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from core.errors import DaemonError
from core.events import (
    Done,
    Progress,
    RunError,
    RunEvent,
    TextDelta,
    ToolCallEnded,
    ToolCallStarted,
    ToolProposal,
)
from core.ports import SessionLifecycle
from memory.chat_exports import replied_by
from ui.shared.boundary import is_blank, user_text
from ui.shared.failures import describe_unexpected
from ui.shared.front_ports import Conversation
from ui.shared.payloads import (
    approval_command,
    ask_result,
    describe_call,
    describe_session_end,
    print_json,
    session_end_line,
    turn_payload,
)
from ui.shared.reminders import Deliver, ReminderFeed, reminders_delivered
from ui.shared.render import render_citations
from ui.terminal.reminders import PROMPT, ReminderLines

if TYPE_CHECKING:
    from ui.shared.tool_runner import ToolRunner


logger = logging.getLogger(__name__)
T = TypeVar("T")
HELP = """Commands:
  /help            show this help
  /new             start a new session
  /model [NAME]    show the models, or switch to NAME
  /history         show this session's turns
  /quit            leave (Ctrl-D works too)
Ctrl-C while Daemon is answering stops that answer; the session goes on."""


@dataclass
class TurnPrinter:
    """Renders run events as they arrive: answer text to `out`, tool activity and errors to `err`."""

    out: TextIO
    err: TextIO
    done: Done | None = None
    error: RunError | None = None
    proposals: list[ToolProposal] = field(default_factory=list)
    _wrote_text: bool = field(default=False)

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, TextDelta):
            self.out.write(event.text)
            self.out.flush()
            self._wrote_text = True
        elif isinstance(event, ToolCallStarted):
            args = json.dumps(event.call.arguments, ensure_ascii=False)[:120]
            self.err.write(f"\n  [tool] {event.call.name} {args}\n")
        elif isinstance(event, ToolProposal):
            self.proposals.append(event)
            self.err.write(f"\n  [proposed, not run] {describe_call(event)}\n")
        elif isinstance(event, ToolCallEnded):
            status = "ok" if event.ok else "failed"
            self.err.write(f"  [tool] {event.call.name} {status} ({event.elapsed_ms:.0f} ms)\n")
        elif isinstance(event, Progress) and event.stage == "compacting":
            self.err.write("  [compacting earlier conversation]\n")
        elif isinstance(event, Done):
            self.done = event
            if not self._wrote_text and event.answer:
                self.out.write(event.answer)
            if event.exit_reason not in ("answer",):
                self.err.write(f"\n  [{event.exit_reason}]")
            if event.extra.get("answered_by") == "memory":  # not the model: say so (the GUI shows the model)
                self.err.write("\n  [answered from memory, not by the model]")
            self.out.write("\n")
            if sources := render_citations(event.citations):  # the footnote the answer's [1] points to
                self.out.write(f"Sources:\n{sources}\n")
            self.out.flush()
        elif isinstance(event, RunError):
            self.error = event
            self.err.write(f"\nerror: {event.message}\n")


async def run_turn(
    orchestrator: Conversation,
    text: str,
    on_event: Callable[[RunEvent], None],
    *,
    session_id: str | None = None,
    model: str | None = None,
    cancel: asyncio.Event | None = None,
) -> None:
    """Run one turn, handing every event to `on_event`."""
    async for event in orchestrator.run_turn(text, session_id=session_id, model=model, cancel=cancel):
        on_event(event)


def ask(orchestrator: Conversation, text: str, *, session_id: str | None, as_json: bool) -> int:
    """`python main.py ask TEXT`: one turn; streamed text, or one JSON object with --json."""
    events: list[RunEvent] = []
    printer = TurnPrinter(sys.stdout, sys.stderr)
    sink = events.append if as_json else printer
    try:
        asyncio.run(run_turn(orchestrator, text, sink, session_id=session_id))
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C or SIGTERM: --json still prints its one object
        if as_json:
            shown = "".join(e.text for e in events if isinstance(e, TextDelta))
            print_json({"answer": shown, "session_id": session_id, "exit_reason": "cancelled"})
        raise
    done = next((e for e in events if isinstance(e, Done)), printer.done)
    error = next((e for e in events if isinstance(e, RunError)), printer.error)
    proposals = [e for e in events if isinstance(e, ToolProposal)] or printer.proposals
    if as_json:
        payload, code = ask_result(events)
        print_json(payload)
        return code
    for proposal in proposals:  # `ask` never runs them: the user can, deliberately
        print(f"  to run it: {approval_command(proposal)}", file=sys.stderr)
    if error:
        return 1
    return 0 if done else 1


NO_ANSWER = {
    "pending": "no answer yet: still running, or Daemon stopped before answering",
    "interrupted": "no answer: Daemon stopped before answering",
    "failed": "no answer: the model failed",
    "cancelled": "stopped before any answer",
}


def history(orchestrator: Conversation, *, session_id: str | None, as_json: bool, limit: int | None) -> int:
    """`python main.py history`: turns of one session or all sessions, oldest first."""
    turns = orchestrator.history(session_id, limit)
    if as_json:
        print_json({"turns": [turn_payload(t) for t in turns]})
        return 0
    if not turns:
        print("no turns yet")
    for turn in turns:
        print(f"[{turn.session_id} #{turn.seq}] you: {turn.user}")
        speaker = (replied_by(turn.model) or "daemon").lower()  # an imported reply is not Daemon's
        print(f"    {speaker}: {turn.assistant or '(' + NO_ANSWER.get(turn.status, turn.status) + ')'}")
    return 0


class Repl:
    """The interactive session: one event loop, Ctrl-C cancels the running turn only."""

    def __init__(
        self,
        orchestrator: Conversation,
        *,
        banner: str = "",
        session_id: str | None = None,
        sessions: SessionLifecycle | None = None,
        tools: ToolRunner | None = None,
        reminders: ReminderFeed | None = None,
        reminder_every_s: float = 20.0,
        notifier: Deliver | None = None,
        act: Deliver | None = None,
    ) -> None:
        """`tools` runs the calls with side effects the user approves (None: proposals are only shown);
        `reminders` is checked every `reminder_every_s` seconds, due ones printed between turns (and given
        to `notifier`, the system's notification; `act` starts the scheduled background tasks)."""
        self.orchestrator = orchestrator
        self.banner = banner
        self.session_id = session_id or orchestrator.new_session()
        self.model = orchestrator.default_model
        self._sessions = sessions
        self._used: list[str] = []  # sessions this REPL talked in, ended (processed) on exit
        self._loop = asyncio.new_event_loop()
        self._tools = tools
        self._read: Callable[[str], str] = input
        self._reminders = reminders
        self._reminder_every_s = reminder_every_s
        self._notifier = notifier
        self._act = act
        self._lines = ReminderLines(reminders.zone) if reminders is not None else None

    def run(self, read: Callable[[str], str] = input) -> int:
        """Loop until /quit or end of input."""
        self._read = read
        if self.banner:
            print(self.banner)
        print("Type /help for commands.")
        try:
            with reminders_delivered(
                self._reminders,
                self._lines.show if self._lines else print,
                every_s=self._reminder_every_s,
                notifier=self._notifier,
                missed=self._lines.missed if self._lines else None,  # before the first prompt
                act=self._act,
            ):
                return self._loop_lines(read)
        finally:
            try:
                self._end_sessions()
            finally:
                self._loop.close()

    def _loop_lines(self, read: Callable[[str], str]) -> int:
        while True:
            try:
                line = user_text(read(PROMPT)).strip()
            except KeyboardInterrupt:
                print()
                continue
            except EOFError:
                print()
                return 0
            if not is_blank(line) and not self.handle(line):
                return 0

    def _end_sessions(self) -> None:
        """Session-end processing for every session used here; Ctrl-C skips it (it resumes next start)."""
        if self._sessions is None or not self._used:
            return
        notice = "Saving what this session taught me (Ctrl-C to skip; it resumes at the next start)…"
        print(notice, file=sys.stderr)
        try:
            for session_id in dict.fromkeys(self._used):
                report = self._loop.run_until_complete(self._sessions.end(session_id))
                logger.info("%s", describe_session_end(report))  # the steps, for the log
                print(session_end_line(report), file=sys.stderr)
        except KeyboardInterrupt:
            print("skipped; it will finish at the next start", file=sys.stderr)

    def handle(self, line: str) -> bool:
        """Handle one input line; False means leave."""
        if line.startswith("/"):
            return self._command(line)
        self._turn(line)
        return True

    def _command(self, line: str) -> bool:
        """A `/command`; False for the ones that leave."""
        name, _, arg = line.partition(" ")
        if name in ("/quit", "/exit"):
            return False
        commands: dict[str, Callable[[str], None]] = {
            "/help": lambda _: print(HELP),
            "/new": lambda _: self._new_session(),
            "/model": lambda chosen: self._switch_model(chosen.strip()),
            "/history": lambda _: self._history(),
        }
        command = commands.get(name)
        if command is None:
            print(f"unknown command {name}; /help lists them")
        else:
            command(arg)
        return True

    def _new_session(self) -> None:
        self.session_id = self.orchestrator.new_session()
        print(f"new session {self.session_id}")

    def _history(self) -> None:
        history(self.orchestrator, session_id=self.session_id, as_json=False, limit=None)

    def _switch_model(self, name: str) -> None:
        if not name:
            for model in self.orchestrator.model_names:
                mark = "*" if model == self.model else " "
                print(f" {mark} {model}  {self.orchestrator.describe_model(model)}")
            return
        if name not in self.orchestrator.model_names:
            print(f"unknown model {name!r}; /model lists them")
            return
        self.model = name
        print(f"now using {name}")

    def _turn(self, text: str) -> None:
        self._used.append(self.session_id)
        cancel = asyncio.Event()
        printer = TurnPrinter(sys.stdout, sys.stderr)
        sys.stdout.write("daemon> ")
        sys.stdout.flush()
        coro = run_turn(
            self.orchestrator, text, printer, session_id=self.session_id, model=self.model, cancel=cancel
        )
        try:
            with self._lines.turn() if self._lines else nullcontext():
                self._run(coro, cancel)
        except DaemonError as error:
            print(f"\nerror: {error}", file=sys.stderr)
        except KeyboardInterrupt:
            print("\n[stopped]", file=sys.stderr)
        except Exception as error:  # noqa: BLE001 - one bad turn must not end the conversation
            print(f"\nerror: {describe_unexpected(error, 'this turn')}", file=sys.stderr)
        for proposal in printer.proposals:
            self._decide(proposal)

    def _run(self, work: Coroutine[Any, Any, T], cancel: asyncio.Event) -> T:
        """Run `work` on the REPL's loop with Ctrl-C and SIGTERM setting `cancel` rather than raising.

        A signal that raises inside the loop can land just after the work's last step, before the loop has
        run the callback that stops it; that callback stays queued and stops the next run on this loop (the
        session-end steps) at once ("Event loop stopped before Future completed"). Here the work ends by its
        own cancel path, and a SIGTERM then exits after it. The handlers are Python's, not the loop's: the
        loop reads its signals in a later step, so one that arrives in the work's last step would be lost.
        """
        received: list[int] = []
        loop = self._loop

        def on_signal(signum: int, frame: object) -> None:
            received.append(signum)
            loop.call_soon_threadsafe(cancel.set)  # never touch the loop's state from inside a handler

        previous = _replace_handlers(on_signal)
        try:
            result = loop.run_until_complete(work)
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        if signal.SIGTERM in received:
            raise SystemExit(128 + signal.SIGTERM)
        return result

    def _decide(self, proposal: ToolProposal) -> None:
        """Ask the user about one proposed call; run it through the guards only on an explicit yes."""
        if self._tools is None:
            print(f"  not run; to run it: {approval_command(proposal)}", file=sys.stderr)
            return
        try:
            answer = self._read(f"Run {describe_call(proposal)}? [y/N] ").strip().casefold()
        except (EOFError, KeyboardInterrupt):
            answer = ""
        if answer not in ("y", "yes"):
            print("  not run", file=sys.stderr)
            return
        outcome = self._run(self._tools.run(proposal.call, approved=True), asyncio.Event())  # it finishes
        print(f"  [{proposal.call.name} {'ok' if outcome.ok else 'failed'}] {outcome.output}")


CANCELLING_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _replace_handlers(handler: Callable[[int, object], None]) -> dict[int, Any]:
    """Handle Ctrl-C and SIGTERM with `handler`; the handlers it replaced, to put back."""
    previous: dict[int, Any] = {}
    for signum in CANCELLING_SIGNALS:
        try:
            previous[signum] = signal.signal(signum, handler)
        except ValueError:  # not the main thread: signals go to the main thread's own handlers
            break
    return previous
