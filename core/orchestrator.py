"""One user turn, end to end, for every front end (CLI, GUI, HTTP API, eval).

The turn is journalled before the model runs (the user's words are safe) and the answer is committed
before the final `Done` event is emitted, so whatever a front end shows as answered survives a crash.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import Protocol

from core.agent.turn_signals import signals_from, with_signals
from core.errors import DaemonError, UserInputError
from core.events import Done, RunError, RunEvent, TextDelta
from core.generation.reply_guard import without_markup
from core.learning import FactLearning
from core.pipeline.tone import support_addendum
from core.ports import ConversationLog, FactExtractor, FactPort, KnowledgePort, MemoryPort, TurnRecord
from core.prompt.assembly import AssembledPrompt
from core.prompt.builder import PromptBuilder, citation_map
from core.tracing import RunSpans, TraceLog, TurnTrace, span, tracing
from core.turn_context import ContextGatherer, JournalHistory, TurnContext
from core.turn_images import ImageSource, turn_images, with_images
from core.types import ImageData, Message

__all__ = ["Agent", "JournalHistory", "ModelChoice", "Orchestrator", "RecallAnswerer"]

logger = logging.getLogger(__name__)


class Agent(Protocol):
    """What the orchestrator needs from an agent runner."""

    def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]: ...


class RecallAnswerer(Protocol):
    """Answers some turns without the model and checks the model's other replies (the embedded one cannot
    use retrieved memories)."""

    def agent_for(self, context: TurnContext, prompt: AssembledPrompt, agent: Agent) -> Agent: ...


@dataclass(frozen=True)
class ModelChoice:
    """A selectable model: the agent that runs it and a label for people (`/model` lists these).
    `recall`, when set, answers the recall questions it takes on instead of the agent."""

    name: str
    agent: Agent
    description: str = ""
    recall: RecallAnswerer | None = None
    # Generation modes a turn may ask for instead of the configured agent ("stream", "best_of", "duel"),
    # and the modes it may not, each with the reason (a duel needs a second model).
    modes: Mapping[str, Agent] = field(default_factory=dict)
    unavailable: Mapping[str, str] = field(default_factory=dict)
    # Its own prompt builder (the budget its context window allows); None: the orchestrator's.
    prompt: PromptBuilder | None = None


class Orchestrator:
    """Runs user turns: journal → context → prompt → agent → commit → facts and graph → `Done`."""

    def __init__(
        self,
        models: Sequence[ModelChoice],
        log: ConversationLog,
        context: ContextGatherer,
        prompt: PromptBuilder,
        *,
        memory: MemoryPort | None = None,
        knowledge: KnowledgePort | None = None,
        extractor: FactExtractor | None = None,
        facts: FactPort | None = None,
        images: ImageSource | None = None,
        traces: TraceLog | None = None,
    ) -> None:
        """`traces`: where each turn's spans are written (None: turns are not traced)."""
        if not models:
            raise ValueError("the orchestrator needs at least one model")
        self._models: Mapping[str, ModelChoice] = {m.name: m for m in models}
        self.default_model = models[0].name
        # use_model may run in a worker thread while a turn picks its model on the event loop
        self._choosing = threading.Lock()
        self._log = log
        self._context = context
        self._prompt = prompt
        self._memory = memory
        self._extractor = extractor
        self._learning = FactLearning(facts, knowledge)  # the Memory tab's edits take the same path
        self._images = images
        self.traces = traces  # public: `bench tracing` compares turns with and without it

    @property
    def model_names(self) -> list[str]:
        return list(self._models)

    def use_model(self, choice: ModelChoice) -> None:
        """Add `choice` (or replace the model of that name) and make it the default from the next turn on.
        A turn already running keeps the choice it picked when it started."""
        with self._choosing:
            others = {name: m for name, m in self._models.items() if name != choice.name}
            self._models = {choice.name: choice, **others}
            self.default_model = choice.name

    def describe_model(self, name: str) -> str:
        return self._models[name].description

    def new_session(self) -> str:
        return self._log.new_session()

    def turn_modes(self, model: str | None = None) -> dict[str, str]:
        """The generation modes one turn of `model` may ask for: mode -> "" when available, else why not."""
        choice = self._choose(model)
        return {**dict.fromkeys(choice.modes, ""), **choice.unavailable}

    async def run_turn(
        self,
        text: str,
        *,
        session_id: str | None = None,
        model: str | None = None,
        cancel: asyncio.Event | None = None,
        images: Sequence[ImageData] = (),
        mode: str | None = None,
        remember: bool = True,
    ) -> AsyncIterator[RunEvent]:
        """Run one turn and yield its events; the last one is `Done` (committed) or `RunError`.
        `images` (the user attached them) and the images the message recalls go to a vision model; `mode`
        (one of `turn_modes`) answers this turn in that generation mode instead of the configured one.
        `remember=False` journals and answers the turn but neither indexes it nor learns facts from it now
        (an evaluation's questions must not become the evidence of the next one)."""
        text = text.strip()
        if not text:
            raise UserInputError("the message is empty")
        choice, base = self._pick(model, mode)
        session_id = session_id or self._log.new_session()
        turn_id = await asyncio.to_thread(self._log.begin_turn, session_id, text)
        trace = TurnTrace(turn_id, session_id) if self.traces is not None else None
        shown: list[str] = []
        finished = False
        context: TurnContext | None = None
        try:
            with tracing(trace):  # no yield inside: the turn's spans, from here and from deeper layers
                context = await self._context.gather(session_id, text)
                prompt, messages = await self._prompted(choice, context, images)
            # The escalation state sets the reply length (short, calm answers in distress), when it has one.
            limit = context.max_response_tokens
            budget = {"max_tokens": limit} if limit is not None else {}
            agent = await self._agent_for(choice, base, context, prompt)
            # aclosing: close the agent generator inside this turn, never later in the garbage collector.
            # with_signals: the tool gate and guards see what the context found (core/agent/turn_signals.py);
            # without_markup: no prompt markup reaches the user (core/generation/reply_guard.py).
            run = without_markup(
                with_signals(agent.run(messages, cancel=cancel, **budget), signals_from(context)),
                citation_map(prompt),
            )
            spans = RunSpans(trace)  # model calls are timed from here
            async with aclosing(run) as events:
                async for event in events:
                    spans.observe(event)
                    if isinstance(event, Done):
                        finished = True
                        async for last in self._answered(
                            event, turn_id, session_id, context, remember, trace
                        ):
                            yield last
                        return
                    if isinstance(event, RunError):
                        finished = True
                        await self._fail(turn_id, session_id, text, context)
                    elif isinstance(event, TextDelta):
                        shown.append(event.text)
                    yield event
        except DaemonError as error:
            finished = True
            await self._fail(turn_id, session_id, text, context)
            yield RunError(str(error), kind=type(error).__name__)
        except Exception:
            # A bug, not a user-facing condition: log the traceback, keep the user's text, say what happened.
            finished = True
            logger.exception("turn %s failed", turn_id)
            await self._fail(turn_id, session_id, text, context)
            yield RunError("internal error; see the log for details", kind="internal")
        finally:
            if not finished:
                # The consumer stopped listening or the task was cancelled (GUI stop, Ctrl-C): keep the
                # user's text and what had been shown, marked as cancelled. Synchronous on purpose: no
                # awaiting while being cancelled.
                self._log.complete_turn(turn_id, "".join(shown), status="cancelled")
                reading = context.reading if context else None
                self._context.observe_reply(session_id, text, "".join(shown), "cancelled", reading)
            self._write_trace(trace, "cancelled" if not finished else "failed")

    async def _prompted(
        self, choice: ModelChoice, context: TurnContext, images: Sequence[ImageData]
    ) -> tuple[AssembledPrompt, list[Message]]:
        """The turn's prompt and the messages the model gets (with the images for a vision model)."""
        with span("prompt.build") as built:
            prompt = await (choice.prompt or self._prompt).build(context)
        if built is not None:
            built.attributes.update(prompt_attributes(prompt))
        return prompt, with_images(prompt.messages(), await turn_images(self._images, context, images))

    async def _answered(
        self,
        done: Done,
        turn_id: str,
        session_id: str,
        context: TurnContext,
        remember: bool,
        trace: TurnTrace | None,
    ) -> AsyncIterator[RunEvent]:
        """The end of an answered turn: the support text the tone reading asks for, then the committed
        `Done` (its trace written first, so `trace show` finds it as soon as `ask` prints the turn id)."""
        support = context.analysis.support if context.analysis else None
        if addendum := support_addendum(done.answer, support):
            yield TextDelta(addendum)
            done = replace(done, answer=done.answer + addendum)
        with tracing(trace):
            committed = await self._commit(turn_id, session_id, done, context, remember)
        self._write_trace(trace, committed.exit_reason, model=committed.model)
        yield committed

    def _write_trace(self, trace: TurnTrace | None, outcome: str, **attributes: str) -> None:
        """Write the turn's trace once, with a span for the whole turn; a failure is only logged."""
        if trace is None or self.traces is None or trace.written:
            return
        trace.written = True
        trace.record(
            "turn", trace.started, (time.time() - trace.started) * 1000, outcome=outcome, **attributes
        )
        try:
            self.traces.write(trace)
        except OSError:
            logger.exception("could not write the trace of turn %s", trace.turn_id)

    def _choose(self, model: str | None) -> ModelChoice:
        with self._choosing:
            name, models = model or self.default_model, self._models
        if name not in models:
            raise UserInputError(f"unknown model {name!r}; choose one of: {', '.join(models)}")
        return models[name]

    def _pick(self, model: str | None, mode: str | None) -> tuple[ModelChoice, Agent]:
        """The model a turn asked for and its agent in the mode asked for (None: the configured one)."""
        choice = self._choose(model)
        if mode is None:
            return choice, choice.agent
        if mode in choice.modes:
            return choice, choice.modes[mode]
        why = choice.unavailable.get(mode) or f"choose one of: {', '.join(choice.modes) or 'none'}"
        raise UserInputError(f"generation mode {mode!r} is not available for {choice.name}: {why}")

    async def _agent_for(
        self, choice: ModelChoice, agent: Agent, context: TurnContext, prompt: AssembledPrompt
    ) -> Agent:
        """The recall answerer's agent for this turn (spaCy: in a thread), else `agent`."""
        if choice.recall is None:
            return agent
        return await asyncio.to_thread(choice.recall.agent_for, context, prompt, agent)

    async def _fail(self, turn_id: str, session_id: str, text: str, context: TurnContext | None) -> None:
        await asyncio.to_thread(self._log.complete_turn, turn_id, "", status="failed")
        reading = context.reading if context else None
        await asyncio.to_thread(self._context.observe_reply, session_id, text, "", "failed", reading)

    async def _commit(
        self, turn_id: str, session_id: str, done: Done, context: TurnContext, remember: bool = True
    ) -> Done:
        status = "complete" if done.exit_reason == "answer" else done.exit_reason
        with span("journal.commit"):
            turn = await asyncio.to_thread(
                self._log.complete_turn,
                turn_id,
                done.answer,
                status=status,
                model=done.model,
                usage=done.usage.as_dict(),
                tool_calls=list(done.tool_calls),
                citations=list(done.citations),
            )
        # The session's state is stored here, once per real turn (never by `preview`): one transaction.
        await asyncio.to_thread(
            self._context.observe_reply, session_id, turn.user, turn.assistant, turn.status, context.reading
        )
        if remember:
            with span("memory.remember"):
                await self._remember(turn, context)
        return replace(done, turn_id=turn_id, session_id=session_id)

    async def record_exchange(self, session_id: str, user: str, assistant: str, *, model: str) -> TurnRecord:
        """Write an exchange that already happened (an import, a benchmark's conversation) as a live turn
        is written, without a model: journaled, indexed into memory, its facts learned. `model` names where
        it came from ("import:locomo")."""
        turn_id = await asyncio.to_thread(self._log.begin_turn, session_id, user)
        turn = await asyncio.to_thread(self._log.complete_turn, turn_id, assistant, model=model)
        history = tuple((await asyncio.to_thread(self._log.recent_turns, session_id, 2))[:-1])
        await self._remember(turn, TurnContext(user, history=history))
        return turn

    async def _remember(self, turn: TurnRecord, context: TurnContext) -> None:
        if self._memory is not None:
            await self._memory.remember(turn)
        await self._learn(turn, context)

    async def _learn(self, turn: TurnRecord, context: TurnContext) -> None:
        """Facts the user stated pass the verification gate into the fact store; what it accepts feeds the
        knowledge graph. A failure is logged: the turn itself is already safe in the journal."""
        if self._extractor is None:
            return
        correcting = context.analysis is not None and context.analysis.relation == "correcting"
        previous = context.history[-1].assistant if context.history else ""
        try:
            learned = await asyncio.to_thread(self._extractor.extract, turn.user)
            await self._learning.record(learned, turn, correcting=correcting, previous_reply=previous)
        except Exception:  # noqa: BLE001 - never fail an answered turn over what it teaches memory
            logger.exception("could not learn facts from turn %s", turn.turn_id)

    async def preview(
        self,
        text: str,
        *,
        session_id: str | None = None,
        budget: int | None = None,
        timings: dict[str, float] | None = None,
    ) -> AssembledPrompt:
        """The prompt a turn would send, without journaling it or calling a model (`prompt` command).
        The session's stored state (escalation, short-term context) is read, never changed: the prompt
        shows the state this message would leave it in.
        `timings` receives the milliseconds spent gathering and assembling."""
        text = text.strip()
        if not text:
            raise UserInputError("the message is empty")
        started = time.perf_counter()
        context = await self._context.gather(session_id or "preview", text)
        gathered = time.perf_counter()
        prompt = await self._prompt.build(context, budget=budget)
        if timings is not None:
            timings["gather_ms"] = (gathered - started) * 1000
            timings["assemble_ms"] = (time.perf_counter() - gathered) * 1000
        return prompt

    def history(self, session_id: str | None = None, limit: int | None = None) -> list[TurnRecord]:
        return self._log.turns(session_id, limit)


def prompt_attributes(prompt: AssembledPrompt) -> dict[str, object]:
    """A prompt's shape for its span: tokens per section in emitted order, the total and the budget."""
    return {
        "sections": {section.key: section.tokens for section in prompt.sections},
        "total_tokens": prompt.total_tokens,
        "budget": prompt.budget,
        "omitted": sorted(prompt.omitted),
    }
