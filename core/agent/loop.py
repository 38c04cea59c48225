"""The agent loop: call the model, run the tools it asks for, feed the results back, repeat.

`AgentRunner.run` is an async generator of `RunEvent`s that always ends with exactly one `Done` or one
`RunError`. Each step is a small method; per-run state lives in a `_RunState` created by `run`, so one
runner can serve many runs (even concurrently) and holds only configuration.

Exits: "answer" (the model answered without tools), "max_rounds" (a round or tool limit; one last call
with tools disabled writes the answer), "budget" (BudgetExceeded or max_total_tokens), "cancelled" (the
cancel event, checked between stream parts, while tools run and before each round). A successful
`done(answer)` call (core/tools/done.py) ends the run too, with that answer and the exit "answer".
Task cancellation is not an exit: CancelledError propagates at once (an async generator must not yield
while it is being cancelled or closed); the caller records what was shown so far.
A ProviderError ends the run with `RunError`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from core.agent.call_guard import CallReview, ToolPolicy
from core.agent.compaction import Compactor
from core.agent.exfiltration import ExfiltrationGuard
from core.agent.guardrails import WITHHELD_NOTE, Guardrail, first_tripped
from core.agent.hooks import streaming_call
from core.agent.limits import RunLimits, drain
from core.agent.tool_exec import ToolOutcome, execute_calls
from core.agent.tool_gate import GateDecision, OfferAll, ToolGate, requested_in_notes
from core.agent.turn_signals import TurnSignals, current_signals
from core.agent.xml_protocol import Decision, ToolProtocol, select_protocol
from core.cancel import cancel_and_wait, unless_cancelled
from core.errors import BudgetExceeded, DaemonError, ProviderError
from core.events import (
    Done,
    Progress,
    RunError,
    RunEvent,
    TextDelta,
    ToolCallEnded,
    ToolCallStarted,
    ToolProposal,
    UsageUpdate,
)
from core.prompt.sections import users_words
from core.providers.base import ChatProvider
from core.tools.done import final_answer
from core.tools.toolset import Toolset
from core.types import ChatRequest, Message, ModelResponse, ToolCall, ToolSpec, Usage

log = logging.getLogger(__name__)

BUDGET_NOTE = "I had to stop here: the usage budget for this conversation is used up."
LIMIT_NOTE = "I reached the step limit for this turn before I could finish."
_GATHERED_CHARS = 300  # per tool result, in the plain summary built when no final model call is made


@dataclass(frozen=True)
class _Offer:
    """The tools offered in one run and the protocol that offers them."""

    toolset: Toolset
    specs: tuple[ToolSpec, ...]
    protocol: ToolProtocol
    hold_text: bool
    spec_tokens: int

    @classmethod
    def of(cls, toolset: Toolset, runner: AgentRunner) -> _Offer:
        specs = toolset.specs()
        protocol = select_protocol(runner.provider.profile, bool(specs))
        hold = not protocol.streams_text
        # Only the compactor plans with the schemas' size, so it counts them with its own counter.
        compactor, tokens = runner.compactor, 0
        if compactor is not None and specs:
            tokens = compactor.counter.count(json.dumps([asdict(s) for s in specs]))
        return cls(toolset, specs, protocol, hold, tokens)


@dataclass
class _RunState:
    """Everything that changes during one run."""

    messages: list[Message]
    pinned: Message | None
    model: str
    offer: _Offer
    review: CallReview  # the per-call guards: budgets, exfiltration, approval (core/agent/call_guard.py)
    gate: str = ""  # the tool gate's stage that decided the offer
    max_tokens: int | None = None  # this run's reply budget, when shorter than the configured one
    usage: Usage = Usage()
    round_no: int = 0
    tool_calls: int = 0
    failed_rounds: int = 0
    records: list[dict[str, Any]] = field(default_factory=list)
    visible: str = ""  # user-visible text of the latest model call (the partial answer on cancel)
    emitted: bool = False  # whether that text already went out as TextDelta events
    cancelled: bool = False
    final: str | None = None  # the answer of a successful `done` call: the run ends with it
    response: ModelResponse = field(default_factory=lambda: ModelResponse(""))
    decision: Decision = field(default_factory=lambda: Decision(""))


class AgentRunner:
    """Runs the ReAct loop for one provider and toolset.

    TextDelta events are a live preview (interim text written before tool calls is streamed too);
    `Done.answer` is the authoritative final text.

    Args:
        provider: the chat model.
        toolset: tools the model may call (empty: plain chat).
        limits: round, tool and token caps.
        tool_output_guardrails: checks on each tool result; a tripped one replaces that result, for the
            model and the record, with a note that it was withheld.
        compactor: summarises old history when it nears the context window (None: never).
        tool_gate: picks the tools offered for each user message (default: all of them).
        tool_policy: per-tool budgets and which tools stay local (default: no caps, every tool watched).
    """

    def __init__(
        self,
        provider: ChatProvider,
        toolset: Toolset | None = None,
        limits: RunLimits | None = None,
        tool_output_guardrails: Sequence[Guardrail] = (),
        compactor: Compactor | None = None,
        tool_gate: ToolGate | None = None,
        tool_policy: ToolPolicy | None = None,
    ) -> None:
        self.provider = provider
        self.toolset = toolset if toolset is not None else Toolset()
        self.limits = limits or RunLimits()
        self.tool_output_guardrails = tuple(tool_output_guardrails)
        self.compactor = compactor
        self.tool_gate: ToolGate = tool_gate if tool_gate is not None else OfferAll()
        self.tool_policy = tool_policy or ToolPolicy()

    async def run(
        self,
        messages: Sequence[Message],
        *,
        cancel: asyncio.Event | None = None,
        max_tokens: int | None = None,
    ) -> AsyncIterator[RunEvent]:
        """Answer the conversation `messages` (not modified), yielding events; ends with Done or RunError.

        `max_tokens` shortens this run's replies (e.g. the escalation state asks for brief answers); it never
        raises the configured `limits.response_max_tokens`.
        """
        cancel = cancel or asyncio.Event()
        state = await self._start(messages, cancel)
        if max_tokens is not None:
            state.max_tokens = max(16, min(max_tokens, self.limits.response_max_tokens))
        try:
            async for event in self._steps(state, cancel):
                yield event
        except BudgetExceeded:
            async for event in self._finish(state, _with_note(state.visible, BUDGET_NOTE), "budget"):
                yield event
        except ProviderError as exc:
            yield RunError(str(exc) or "The model provider failed.", kind="provider")
        except DaemonError as exc:
            yield RunError(str(exc), kind=type(exc).__name__)
        except Exception:
            log.exception("agent run failed")
            yield RunError("Something went wrong while answering; the log has details.", kind="internal")

    async def _start(self, messages: Sequence[Message], cancel: asyncio.Event) -> _RunState:
        """The run's state: the tools the gate offers for the user's words, and the guards' memory of the
        turn's private text (from the orchestrator's signals, else the system message)."""
        pinned = _last_user(messages)
        words = users_words(pinned.content) if pinned else ""
        signals = current_signals()
        try:
            decision = requested_in_notes(messages, self.toolset) or await self.tool_gate.decide(
                words, self.toolset, signals, cancel
            )
        except Exception:  # the gate is an optimisation: a broken one offers nothing rather than failing
            log.exception("tool gate failed; offering no tools")
            decision = GateDecision(Toolset(), "error")
        exfiltration = ExfiltrationGuard(_private_texts(messages, signals), words)
        review = CallReview(self.tool_policy, exfiltration)
        offer = _Offer.of(decision.toolset, self)
        return _RunState(list(messages), pinned, self.provider.model, offer, review, decision.stage)

    async def _steps(self, state: _RunState, cancel: asyncio.Event) -> AsyncIterator[RunEvent]:
        limit = "rounds"
        for round_no in range(1, self.limits.max_rounds + 1):
            state.round_no = round_no
            async for event in self._round(state, cancel):
                yield event
            if (ending := self._ending(state)) is not None:
                async for event in self._finish(state, *ending):
                    yield event
                return
            if hit := self.limits.tool_limit_hit(state.tool_calls, state.failed_rounds):
                limit = hit
                break
        async for event in self._wrap_up(state, cancel, limit):
            yield event

    def _ending(self, state: _RunState) -> tuple[str, str] | None:
        """(answer, exit_reason) when the run ends after this round, or None to keep going."""
        if state.cancelled:
            return state.visible, "cancelled"
        if state.final is not None:
            return state.final, "answer"
        if not state.decision.calls:
            return state.decision.answer, "answer"
        if self.limits.over_token_budget(state.usage):
            return _with_note(state.visible, BUDGET_NOTE), "budget"
        return None

    async def _round(self, state: _RunState, cancel: asyncio.Event) -> AsyncIterator[RunEvent]:
        """One iteration: compaction if needed, a model call, and the tools it asked for."""
        if cancel.is_set():
            state.cancelled = True
            return
        yield Progress("thinking", f"round {state.round_no}")
        async for event in self._maybe_compact(state):
            yield event
        async for event in self._model_call(state, cancel, final=False):
            yield event
        if state.cancelled:
            return
        if state.decision.calls:
            async for event in self._tool_round(state, cancel):
                yield event

    async def _model_call(
        self, state: _RunState, cancel: asyncio.Event, *, final: bool
    ) -> AsyncIterator[RunEvent]:
        """Call the model, streaming visible text; leaves the result in `state`."""
        base = ChatRequest(
            tuple(state.messages),
            max_tokens=state.max_tokens or self.limits.response_max_tokens,
            temperature=self.limits.temperature,
        )
        request = state.offer.protocol.prepare(base, state.offer.specs, final=final)
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        call_model = streaming_call(self.provider, queue.put_nowait, cancel)
        task = asyncio.ensure_future(call_model(request))
        task.add_done_callback(lambda _task: queue.put_nowait(None))
        text_filter = state.offer.protocol.text_filter()
        state.visible, state.emitted = "", False
        try:
            async for piece in drain(queue, cancel):
                if delta := self._show(state, text_filter.feed(piece)):
                    yield delta
            if not task.done():  # the cancel event fired while the model was still talking
                state.cancelled = True
                return
            response = task.result()
        finally:
            await cancel_and_wait(task)
        if delta := self._show(state, text_filter.flush()):
            yield delta
        if response.finish_reason == "cancelled":
            state.cancelled = True
            return
        async for event in self._accept(state, response):
            yield event

    def _show(self, state: _RunState, text: str) -> TextDelta | None:
        if not text:
            return None
        state.visible += text
        if state.offer.hold_text:
            return None
        state.emitted = True
        return TextDelta(text)

    async def _accept(self, state: _RunState, response: ModelResponse) -> AsyncIterator[RunEvent]:
        """Book a finished model call: usage, model name, and how to read it."""
        state.usage = state.usage + response.usage
        state.model = response.model or state.model
        yield UsageUpdate(call=response.usage, total=state.usage)
        state.response = response
        state.decision = state.offer.protocol.interpret(response, state.round_no)

    async def _tool_round(self, state: _RunState, cancel: asyncio.Event) -> AsyncIterator[RunEvent]:
        """Run the calls of the latest response concurrently and append them and their results."""
        decision = state.decision
        room = max(self.limits.max_tool_calls - state.tool_calls, 0)
        errors = dict(decision.errors)
        for call in decision.calls[room:]:
            errors[call.id] = (
                f"Not run: the limit of {self.limits.max_tool_calls} tool calls per turn is reached."
            )
        proposed = self._review_calls(state, errors)
        yield Progress("running tools", ", ".join(c.name for c in decision.calls))
        for call in decision.calls:
            yield _announced(call, state.offer.toolset, proposed)
        work = execute_calls(
            decision.calls,
            state.offer.toolset,
            max_output_chars=self.limits.max_tool_output_chars,
            max_parallel=self.limits.max_parallel_tools,
            preset_errors=errors,
        )
        outcomes = await unless_cancelled(work, cancel)
        if outcomes is None:
            state.cancelled = True
            return
        outcomes = [await self._screened(outcome) for outcome in outcomes]
        state.tool_calls += len(decision.calls)
        state.failed_rounds = 0 if any(o.ok for o in outcomes) else state.failed_rounds + 1
        for outcome in outcomes:
            state.review.observe(outcome.call, outcome.output)
            record = outcome.as_record()
            if outcome.call.id in proposed:
                state.records.append({**record, "proposed": True})
                continue
            yield ToolCallEnded(outcome.call, outcome.ok, outcome.output, outcome.elapsed_ms)
            state.records.append(record)
        state.messages.append(state.offer.protocol.assistant_message(state.response, decision))
        state.messages.extend(state.offer.protocol.result_messages(outcomes))
        if (final := final_answer((o.call for o in outcomes if o.ok), state.offer.toolset)) is not None:
            state.final, state.emitted = final, False  # never streamed yet: `_finish` shows it

    def _review_calls(self, state: _RunState, errors: dict[str, str]) -> dict[str, str]:
        """Pass each call not already refused through the guards: blocked and proposed calls get the note
        the model reads in `errors`; the proposed ones are returned, id -> their preview."""
        proposed: dict[str, str] = {}
        for call in state.decision.calls:
            if call.id in errors:
                continue
            verdict = state.review.review(call, state.offer.toolset.get(call.name))
            if verdict.action != "run":
                errors[call.id] = verdict.message
                if verdict.action == "propose":
                    proposed[call.id] = verdict.preview
        return proposed

    async def _screened(self, outcome: ToolOutcome) -> ToolOutcome:
        """The outcome, or, when a tool-output guardrail trips, a failed one saying it was withheld."""
        tripped = await first_tripped(self.tool_output_guardrails, outcome.output) if outcome.ok else None
        if tripped is None:
            return outcome
        log.warning("tool %s output withheld: %s", outcome.call.name, tripped.reason)
        return replace(outcome, ok=False, output=WITHHELD_NOTE)

    async def _maybe_compact(self, state: _RunState) -> AsyncIterator[RunEvent]:
        if self.compactor is None:
            return
        window = self.provider.profile.context_window
        if not self.compactor.should_compact(
            state.messages,
            context_window=window,
            reserve=self.limits.response_max_tokens,
            overhead_tokens=state.offer.spec_tokens,
        ):
            return
        yield Progress("compacting", "summarising earlier messages to fit the context window")
        result = await self.compactor.compact(
            state.messages, self.provider, context_window=window, pinned=state.pinned
        )
        state.messages = list(result.messages)
        if result.summarized:
            state.usage = state.usage + result.usage
            yield UsageUpdate(call=result.usage, total=state.usage)

    async def _wrap_up(self, state: _RunState, cancel: asyncio.Event, limit: str) -> AsyncIterator[RunEvent]:
        """After a round or tool limit: one last call without tools, or a plain summary of the results."""
        yield Progress("wrapping up", f"{limit} limit reached")
        answer = ""
        if self.limits.final_answer_on_limit:
            state.round_no += 1
            async for event in self._model_call(state, cancel, final=True):
                yield event
            if state.cancelled:
                async for event in self._finish(state, state.visible, "cancelled"):
                    yield event
                return
            answer = state.decision.answer
        async for event in self._finish(
            state, answer or _gathered(state.records), "max_rounds", {"limit": limit}
        ):
            yield event

    async def _finish(
        self, state: _RunState, answer: str, reason: str, extra: dict[str, Any] | None = None
    ) -> AsyncIterator[RunEvent]:
        """Show the answer if it was held back, and emit Done."""
        if answer and not state.emitted:
            yield TextDelta(answer)
        yield self._done(state, answer, reason, extra)

    def _done(self, state: _RunState, answer: str, reason: str, extra: dict[str, Any] | None = None) -> Done:
        return Done(
            answer=answer,
            exit_reason=reason,
            usage=state.usage,
            model=state.model,
            tool_calls=tuple(state.records),
            extra={"rounds": state.round_no, "tool_gate": state.gate, **(extra or {})},
        )


def _last_user(messages: Sequence[Message]) -> Message | None:
    return next((m for m in reversed(messages) if m.role == "user"), None)


def _announced(call: ToolCall, toolset: Toolset, proposed: dict[str, str]) -> ToolProposal | ToolCallStarted:
    """The event that tells the front end about a call: a proposal to approve (with the preview the guard
    read), or a call starting."""
    if call.id not in proposed:
        return ToolCallStarted(call)
    tool = toolset.get(call.name)
    return ToolProposal(call, tool.description if tool else "", proposed[call.id])


def _private_texts(messages: Sequence[Message], signals: TurnSignals | None) -> tuple[str, ...]:
    """The turn's private text: what the orchestrator says the context holds, else (a runner used outside
    a turn) the system messages, where the assembled prompt puts memories and facts."""
    if signals is not None:
        return signals.private_texts
    return tuple(m.content for m in messages if m.role == "system")


def _with_note(partial: str, note: str) -> str:
    return f"{partial.strip()}\n\n{note}" if partial.strip() else note


def _gathered(records: Sequence[dict[str, Any]]) -> str:
    """A plain, honest answer from the successful tool results when the model gives none."""
    found = [r for r in records if r["ok"]]
    if not found:
        return LIMIT_NOTE
    lines = [f"- {r['name']}: {r['output'][:_GATHERED_CHARS]}" for r in found[-5:]]
    return LIMIT_NOTE + " What I found so far:\n" + "\n".join(lines)
