"""Adapter for the OpenAI Chat Completions wire API, built on the official `openai` SDK.

One adapter covers OpenAI, DeepSeek, OpenRouter, Ollama, LM Studio, vLLM and the llama.cpp server: only
`base_url`, the key, the profile and the `dialect` (what the server honours of `tool_choice`) differ. Tool
calls are read by the tolerant reader in `core/providers/openai_tools.py`, which copes with each server's
quirks and with calls a small model wrote as text. The SDK is imported inside the constructor so importing
this module stays cheap, and the SDK's own retries are off because `RetryingProvider` owns retries.

The module also holds the error and argument helpers every adapter shares (the Anthropic and Gemini
adapters import them), so all three map failures to `ProviderError` the same way.
"""

from __future__ import annotations

import base64
import importlib
import json
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

from core.errors import ConfigError, ProviderError, TruncatedStreamError
from core.providers.base import ProviderProfile
from core.providers.openai_tools import (
    INVALID_ARGUMENTS_KEY as INVALID_ARGUMENTS_KEY,  # re-exported: the other adapters and tests use it here
)
from core.providers.openai_tools import (
    CallAccumulator,
    CallReader,
    dialect_named,
    field_of,
    finish_reason,
    message_calls,
    tool_params,
)
from core.providers.openai_tools import (
    parse_tool_arguments as parse_tool_arguments,  # re-exported: the other adapters use it from here
)
from core.providers.text_tool_calls import CallTextHold
from core.types import (
    ChatRequest,
    FinishPart,
    ImageData,
    Message,
    ModelResponse,
    StreamPart,
    TextPart,
    ToolCallPart,
    Usage,
)

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
_DETAIL_LIMIT = 300


# --- Shared helpers (all adapters) ---------------------------------------------------------------


def is_retryable_status(status: int | None) -> bool:
    """Timeouts (408), conflicts (409), rate limits (429) and server errors (5xx, Anthropic 529)."""
    return status is not None and (status in (408, 409, 429) or status >= 500)


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds to wait from `retry-after-ms`, or `Retry-After` given as seconds or an HTTP date."""
    if not headers:
        return None
    millis = _number(headers.get("retry-after-ms"))
    value = (headers.get("retry-after") or "").strip()
    seconds = millis / 1000.0 if millis is not None else _number(value)
    if seconds is None and value:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - (time.time() if now is None else now)
        except (TypeError, ValueError):
            return None
    return None if seconds is None else max(0.0, seconds)


def scrub(text: str, secret: str | None) -> str:
    """Remove a secret (the API key) from text that may reach the user or a log."""
    if secret and len(secret) >= 4:
        text = text.replace(secret, "***")
    return text


def error_detail(body: object, fallback: str = "") -> str:
    """The vendor's human message from an error body (`{"error": {"message": ...}}` and variants)."""
    message: object = None
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, Mapping) else inner
    text = str(message) if message else fallback
    return text[:_DETAIL_LIMIT]


@dataclass(frozen=True)
class ErrorContext:
    """What an adapter's error messages may name. The key is kept only to scrub it out of vendor text."""

    provider: str
    model: str
    key_env: str | None
    timeout: float
    secret: str | None = field(default=None, repr=False)

    def http(self, status: int, detail: str, retry_after: float | None) -> ProviderError:
        """The `ProviderError` for an HTTP error status, with a message a user can act on."""
        who, detail = self.provider, scrub(detail, self.secret)
        if status == 401:  # the vendor's text may echo part of the key: leave it out
            hint = f"; set {self.key_env} to a valid key" if self.key_env else ""
            message = f"{who} rejected the API key (HTTP 401){hint}"
        elif status == 403:
            hint = f"check that the key in {self.key_env} may use" if self.key_env else "check access to"
            message = f"{who} refused access (HTTP 403): {detail}; {hint} model '{self.model}'"
        elif status == 429:
            wait = f", retry after {retry_after:g}s" if retry_after is not None else ""
            message = f"{who} rate limit reached (HTTP 429{wait}): {detail}"
        elif status == 404:
            message = (
                f"{who} returned HTTP 404 for model '{self.model}': {detail}; check the model and base_url"
            )
        elif status >= 500:
            message = f"{who} server error (HTTP {status}): {detail}"
        else:
            message = f"{who} rejected the request (HTTP {status}): {detail}"
        retryable = is_retryable_status(status)
        return ProviderError(
            message, status=status, retryable=retryable, retry_after=retry_after, provider=who
        )

    def connection(self, timed_out: bool) -> ProviderError:
        """A retryable error for a timeout or a failed connection."""
        what = f"did not answer within {self.timeout:g}s" if timed_out else "could not be reached"
        return ProviderError(f"{self.provider} {what}", retryable=True, provider=self.provider)

    def truncated(self, detail: str) -> TruncatedStreamError:
        """The answer was cut off; the partial text must not be used."""
        return TruncatedStreamError(
            f"{self.provider} {detail}; the partial answer was discarded", provider=self.provider
        )


def map_stainless_error(
    sdk: Any, exc: BaseException, ctx: ErrorContext, in_stream: bool = False
) -> ProviderError:
    """Map an `openai` or `anthropic` SDK error (same generated shape) to `ProviderError`.

    Inside a stream, a dropped connection (SDK error or raw transport error) or an error event means the
    answer was cut off: that is a `TruncatedStreamError`.
    """
    # Anthropic reports an error event inside a 200 stream as a status error carrying status 200.
    if isinstance(exc, sdk.APIStatusError) and not (in_stream and exc.status_code < 400):
        fallback = str(getattr(exc, "message", "")) or type(exc).__name__
        retry_after = parse_retry_after(exc.response.headers)
        return ctx.http(exc.status_code, error_detail(getattr(exc, "body", None), fallback), retry_after)
    if in_stream:
        if isinstance(exc, json.JSONDecodeError):  # a proxy or a broken server mangled an event
            return ctx.truncated("stream was cut off: the server sent a malformed event")
        if isinstance(exc, sdk.APIConnectionError) or not isinstance(exc, sdk.APIError):
            return ctx.truncated("stream was cut off: the connection was lost")
        detail = scrub(error_detail(getattr(exc, "body", None), str(exc)), ctx.secret)
        return ctx.truncated(f"stream was cut off: {detail}")
    if isinstance(exc, sdk.APIConnectionError):
        return ctx.connection(timed_out=isinstance(exc, sdk.APITimeoutError))
    return ProviderError(f"{ctx.provider} error: {scrub(str(exc), ctx.secret)}", provider=ctx.provider)


def transport_errors() -> tuple[type[BaseException], ...]:
    """Exceptions some SDKs let escape from a stream: HTTP transport errors (a dropped connection mid-body)
    and an event that is not JSON (the SDKs parse each event with `json.loads`)."""
    found: list[type[BaseException]] = [TimeoutError, json.JSONDecodeError]
    for module, name in (("httpx2", "HTTPError"), ("httpx", "HTTPError"), ("aiohttp", "ClientError")):
        try:
            found.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(found)


def import_sdk(module: str, package: str) -> Any:
    """Import a provider SDK lazily, turning a missing package into a clear `ConfigError`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(
            f"the '{package}' package is needed for this provider: pip install {package}"
        ) from exc


# --- OpenAI wire format ---------------------------------------------------------------------------


def data_url(image: ImageData) -> str:
    """An image as the `data:` URL OpenAI's `image_url` part takes."""
    return f"data:{image.media_type};base64," + base64.b64encode(image.data).decode("ascii")


def _user_content(message: Message, vision: bool) -> str | list[dict[str, Any]]:
    """The text alone, or (to a vision model, when the message carries images) text and `image_url` parts."""
    if not (vision and message.images):
        return message.content
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
    parts += [{"type": "image_url", "image_url": {"url": data_url(image)}} for image in message.images]
    return parts


def _message_to_openai(message: Message, vision: bool = False) -> dict[str, Any]:
    out: dict[str, Any]
    if message.role == "tool":
        out = {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content}
        if message.name:  # llama.cpp's and Ollama's chat templates render the tool's name with its result
            out["name"] = message.name
        return out
    content = _user_content(message, vision) if message.role == "user" else message.content
    out = {"role": message.role, "content": content}
    if message.name and message.role == "user":
        out["name"] = message.name
    if message.role == "assistant" and message.tool_calls:
        out["content"] = message.content or None
        out["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for c in message.tool_calls
        ]
    return out


def _usage(raw: Any) -> Usage:
    if raw is None:
        return Usage()
    return Usage(int(field_of(raw, "prompt_tokens") or 0), int(field_of(raw, "completion_tokens") or 0))


@dataclass
class _StreamState:
    """Accumulates chunks: text passes through (minus calls written as text), tool-call deltas are joined.

    Usage may come in any chunk (llama.cpp: with the finish reason; OpenAI, vLLM, Ollama: a last chunk with
    no choices) or never (LM Studio); the last one seen counts.
    """

    hold: CallTextHold | None  # None when no tools were offered: nothing to hold back
    calls: CallAccumulator = field(default_factory=CallAccumulator)
    finish: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    def feed(self, chunk: Any) -> list[StreamPart]:
        self.model = field_of(chunk, "model") or self.model
        if (usage := field_of(chunk, "usage")) is not None:
            self.usage = _usage(usage)
        parts: list[StreamPart] = []
        for choice in field_of(chunk, "choices") or []:
            if field_of(choice, "index") not in (0, None):  # only the first choice is ever asked for
                continue
            delta = field_of(choice, "delta")
            text = field_of(delta, "content") if delta is not None else None
            if isinstance(text, str) and (shown := self.hold.feed(text) if self.hold else text):
                parts.append(TextPart(shown))
            for call in (field_of(delta, "tool_calls") if delta is not None else None) or []:
                self.calls.feed(call)
            self.finish = field_of(choice, "finish_reason") or self.finish
        return parts

    def ending(self, reader: CallReader, model: str) -> list[StreamPart]:
        """The held-back text, the calls and the one `FinishPart`."""
        text, calls = reader.settle(self.hold.finish() if self.hold else "", self.calls.calls())
        parts: list[StreamPart] = [TextPart(text)] if text else []
        parts += [ToolCallPart(call) for call in calls]
        parts.append(FinishPart(finish_reason(self.finish, bool(calls)), self.usage, self.model or model))
        return parts


class OpenAICompatProvider:
    """A `ChatProvider` for any server speaking OpenAI's `/v1/chat/completions`.

    `max_tokens_field` is "max_tokens" for most compatible servers and "max_completion_tokens" for
    OpenAI's reasoning models. `key_env` only names the variable in error messages; nothing is read.
    `dialect` names the server family (openai, vllm, ollama, lmstudio, llamacpp) for what it honours of
    `tool_choice`; everything else is read the same tolerant way for all of them.
    """

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        context_window: int = 128_000,
        name: str = "openai",
        native_tools: bool = True,
        json_schema: bool = True,
        vision: bool = False,
        local: bool = False,
        stream_usage: bool = True,
        max_tokens_field: str = "max_tokens",
        key_env: str | None = "OPENAI_API_KEY",
        dialect: str = "openai",
    ) -> None:
        self.name = name
        self.dialect = dialect_named(dialect)
        self.model = model
        self.profile = ProviderProfile(
            native_tools=native_tools,
            vision=vision,
            context_window=context_window,
            streaming=True,
            json_schema=json_schema,
            local=local,
        )
        self._sdk = import_sdk("openai", "openai")
        self._ctx = ErrorContext(name, model, key_env, timeout, api_key)
        self._transport_errors = transport_errors()
        self._stream_usage = stream_usage
        self._max_tokens_field = max_tokens_field
        # Local servers accept any key; the SDK insists on one (and would read the environment for it).
        self._client = self._sdk.AsyncOpenAI(
            api_key=api_key or "not-needed",
            base_url=base_url or OPENAI_DEFAULT_BASE_URL,
            timeout=timeout,
            max_retries=0,
        )

    def _params(self, request: ChatRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.model,
            "messages": [_message_to_openai(m, self.profile.vision) for m in request.messages],
            "temperature": request.temperature,
            self._max_tokens_field: request.max_tokens,
        }
        if self.profile.native_tools:
            params.update(tool_params(self.dialect, request.tools, request.tool_choice))
        if request.response_schema is not None and self.profile.json_schema:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "response", "schema": request.response_schema},
            }
        if request.stop:
            params["stop"] = list(request.stop)
        return params

    def _error(self, exc: BaseException, in_stream: bool = False) -> ProviderError:
        return map_stainless_error(self._sdk, exc, self._ctx, in_stream)

    async def complete(self, request: ChatRequest) -> ModelResponse:
        """One whole answer (text and/or tool calls) with usage."""
        try:
            response = await self._client.chat.completions.create(**self._params(request))
        except self._sdk.APIError as exc:
            raise self._error(exc) from exc
        if not response.choices:
            raise ProviderError(f"{self.name} returned no choices", retryable=True, provider=self.name)
        choice = response.choices[0]
        if choice.finish_reason is None:
            raise self._ctx.truncated("returned an unfinished answer")
        message = choice.message
        content = field_of(message, "content")
        text, calls = CallReader.for_request(request).settle(
            content if isinstance(content, str) else "", message_calls(field_of(message, "tool_calls"))
        )
        return ModelResponse(
            text=text,
            tool_calls=calls,
            usage=_usage(response.usage),
            model=response.model or self.model,
            finish_reason=finish_reason(choice.finish_reason, bool(calls)),
        )

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        """Text as it arrives, then complete tool calls, then one `FinishPart` with usage."""
        params = self._params(request)
        if self._stream_usage:
            params["stream_options"] = {"include_usage": True}
        try:
            chunks = await self._client.chat.completions.create(stream=True, **params)
        except self._sdk.APIError as exc:
            raise self._error(exc) from exc
        state = _StreamState(CallTextHold() if request.tools else None)
        try:
            async for chunk in chunks:
                for part in state.feed(chunk):
                    yield part
        except (self._sdk.APIError, *self._transport_errors) as exc:
            raise self._error(exc, in_stream=True) from exc
        finally:
            await chunks.close()
        if state.finish is None:
            raise self._ctx.truncated("stream ended without a finish_reason")
        for part in state.ending(CallReader.for_request(request), self.model):
            yield part

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.close()
