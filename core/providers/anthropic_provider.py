"""Adapter for Anthropic's Messages API, built on the official `anthropic` SDK.

System messages are lifted into the `system` parameter, tool calls become `tool_use` blocks and tool
results `tool_result` blocks inside a user turn; consecutive messages of one role are merged because the
API wants user and assistant turns to alternate. The SDK is imported in the constructor, its retries off.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.errors import ProviderError
from core.providers.base import ProviderProfile
from core.providers.openai_compat import (
    ErrorContext,
    import_sdk,
    map_stainless_error,
    parse_tool_arguments,
    transport_errors,
)
from core.types import (
    ChatRequest,
    FinishPart,
    ImageData,
    Message,
    ModelResponse,
    StreamPart,
    TextPart,
    ToolCall,
    ToolCallPart,
    Usage,
)

ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com"
_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


def _image_block(image: ImageData) -> dict[str, Any]:
    data = base64.b64encode(image.data).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": image.media_type, "data": data}}


def _blocks(message: Message, vision: bool = False) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {"type": "tool_result", "tool_use_id": message.tool_call_id or "", "content": message.content}
        ]
    blocks: list[dict[str, Any]] = []
    if vision and message.role == "user":  # images first: Anthropic's advice for image questions
        blocks += [_image_block(image) for image in message.images]
    blocks += [{"type": "text", "text": message.content}] if message.content else []
    if message.role == "assistant":
        blocks += [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in message.tool_calls
        ]
    return blocks


def to_anthropic_messages(
    messages: Sequence[Message], vision: bool = False
) -> tuple[str, list[dict[str, Any]]]:
    """Split out the system prompt and convert the rest to alternating Anthropic turns (a user message's
    images as base64 `image` blocks when `vision`)."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            system.append(message.content)
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message, vision)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return "\n\n".join(s for s in system if s), turns


def _tool_choice(choice: str) -> dict[str, Any]:
    if choice in ("none", "auto"):
        return {"type": choice}
    if choice == "required":
        return {"type": "any"}
    return {"type": "tool", "name": choice}


def _usage(raw: Any) -> Usage:
    """Input counts cache reads and writes too: they are tokens the prompt cost."""
    if raw is None:
        return Usage()
    cached = (getattr(raw, "cache_creation_input_tokens", 0) or 0) + (
        getattr(raw, "cache_read_input_tokens", 0) or 0
    )
    return Usage(int(raw.input_tokens or 0) + cached, int(raw.output_tokens or 0))


@dataclass
class _StreamState:
    """Follows the event stream; text passes through, `input_json_delta` fragments are joined per block."""

    open_calls: dict[int, list[str]] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    stop_reason: str | None = None
    stopped: bool = False
    model: str = ""

    def feed(self, event: Any) -> list[StreamPart]:
        kind = event.type
        if kind == "message_start":
            usage = _usage(event.message.usage)
            self.input_tokens, self.output_tokens = usage.input_tokens, usage.output_tokens
            self.model = event.message.model or self.model
        elif kind == "content_block_start" and event.content_block.type == "tool_use":
            self.open_calls[event.index] = [event.content_block.id, event.content_block.name, ""]
        elif kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta" and delta.text:
                return [TextPart(delta.text)]
            if delta.type == "input_json_delta" and event.index in self.open_calls:
                self.open_calls[event.index][2] += delta.partial_json or ""
        elif kind == "content_block_stop" and event.index in self.open_calls:
            cid, name, raw = self.open_calls.pop(event.index)
            return [ToolCallPart(ToolCall(cid, name, parse_tool_arguments(raw)))]
        elif kind == "message_delta":
            self.stop_reason = event.delta.stop_reason or self.stop_reason
            if event.usage is not None:
                self.output_tokens = event.usage.output_tokens or self.output_tokens
                if getattr(event.usage, "input_tokens", None):
                    self.input_tokens = _usage(event.usage).input_tokens
        elif kind == "message_stop":
            self.stopped = True
        return []


class AnthropicProvider:
    """A `ChatProvider` for Claude models over the Messages API.

    `json_schema` sends `response_schema` as `output_config.format` (structured outputs; recent models
    only). Temperature is not sent unless `send_temperature` is set, because newer models reject it.
    """

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        timeout: float = 60.0,
        context_window: int = 200_000,
        name: str = "anthropic",
        vision: bool = True,
        json_schema: bool = True,
        send_temperature: bool = False,
        key_env: str | None = "ANTHROPIC_API_KEY",
    ) -> None:
        self.name = name
        self.model = model
        self.profile = ProviderProfile(
            native_tools=True,
            vision=vision,
            context_window=context_window,
            streaming=True,
            json_schema=json_schema,
            local=False,
        )
        self._sdk = import_sdk("anthropic", "anthropic")
        self._ctx = ErrorContext(name, model, key_env, timeout, api_key)
        self._transport_errors = transport_errors()
        self._send_temperature = send_temperature
        # An empty key still builds a client, so a missing key surfaces as a clear 401 message.
        self._client = self._sdk.AsyncAnthropic(
            api_key=api_key or "missing",
            base_url=base_url or ANTHROPIC_DEFAULT_BASE_URL,
            timeout=timeout,
            max_retries=0,
        )

    def _params(self, request: ChatRequest) -> dict[str, Any]:
        system, turns = to_anthropic_messages(request.messages, self.profile.vision)
        params: dict[str, Any] = {"model": self.model, "max_tokens": request.max_tokens, "messages": turns}
        if system:
            params["system"] = system
        if request.tools:
            params["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in request.tools
            ]
            if request.tool_choice is not None:
                params["tool_choice"] = _tool_choice(request.tool_choice)
        if request.response_schema is not None and self.profile.json_schema:
            params["output_config"] = {"format": {"type": "json_schema", "schema": request.response_schema}}
        if request.stop:
            params["stop_sequences"] = list(request.stop)
        if self._send_temperature:
            params["extra_body"] = {"temperature": request.temperature}
        return params

    def _error(self, exc: BaseException, in_stream: bool = False) -> ProviderError:
        return map_stainless_error(self._sdk, exc, self._ctx, in_stream)

    async def complete(self, request: ChatRequest) -> ModelResponse:
        """One whole answer: text blocks joined, `tool_use` blocks as tool calls."""
        try:
            message = await self._client.messages.create(**self._params(request))
        except self._sdk.APIError as exc:
            raise self._error(exc) from exc
        if message.stop_reason is None:
            raise self._ctx.truncated("returned an unfinished message")
        texts = [b.text for b in message.content if b.type == "text"]
        calls = tuple(
            ToolCall(b.id, b.name, dict(b.input) if isinstance(b.input, dict) else {})
            for b in message.content
            if b.type == "tool_use"
        )
        return ModelResponse(
            text="".join(texts),
            tool_calls=calls,
            usage=_usage(message.usage),
            model=message.model or self.model,
            finish_reason=_STOP_REASONS.get(message.stop_reason, message.stop_reason),
        )

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        """Text deltas, each tool call when its block closes, then one `FinishPart` after `message_stop`."""
        try:
            events = await self._client.messages.create(stream=True, **self._params(request))
        except self._sdk.APIError as exc:
            raise self._error(exc) from exc
        state = _StreamState()
        try:
            async for event in events:
                for part in state.feed(event):
                    yield part
        except (self._sdk.APIError, *self._transport_errors) as exc:
            raise self._error(exc, in_stream=True) from exc
        finally:
            await events.close()
        if not state.stopped:
            raise self._ctx.truncated("stream ended without message_stop")
        reason = state.stop_reason or "end_turn"
        yield FinishPart(
            _STOP_REASONS.get(reason, reason),
            Usage(state.input_tokens, state.output_tokens),
            state.model or self.model,
        )

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.close()
