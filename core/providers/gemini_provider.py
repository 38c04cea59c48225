"""Adapter for Google's Gemini API, built on the official `google-genai` SDK (`genai.Client(...).aio`).

Tools become function declarations (JSON schema passed as-is), tool calls `functionCall` parts and
tool results `functionResponse` parts in a user turn. Gemini has no end-of-stream event: a stream is
complete when a chunk carries the candidate's `finishReason`. The SDK's retries are switched off.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.errors import ProviderError
from core.providers.base import ProviderProfile
from core.providers.openai_compat import ErrorContext, import_sdk, parse_retry_after, transport_errors
from core.types import (
    ChatRequest,
    FinishPart,
    Message,
    ModelResponse,
    StreamPart,
    TextPart,
    ToolCall,
    ToolCallPart,
    Usage,
)

GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/"
_FINISH = {"STOP": "stop", "MAX_TOKENS": "length", "MALFORMED_FUNCTION_CALL": "error"}
_FILTERED = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}
_SIGNATURE_MEMORY = 256


def _finish_reason(raw: Any, has_calls: bool) -> str:
    name = str(getattr(raw, "name", raw) or "STOP").upper()
    if has_calls and name == "STOP":
        return "tool_calls"
    if name in _FILTERED:
        return "content_filter"
    return _FINISH.get(name, name.lower())


def _usage(raw: Any) -> Usage:
    if raw is None:
        return Usage()
    output = (raw.candidates_token_count or 0) + (getattr(raw, "thoughts_token_count", 0) or 0)
    return Usage(int(raw.prompt_token_count or 0), int(output))


def _retry_delay(details: Any) -> float | None:
    """Gemini puts the wait in a `google.rpc.RetryInfo` detail (`"retryDelay": "7s"`) instead of a header."""
    error = details.get("error", details) if isinstance(details, Mapping) else None
    for item in (error.get("details") or []) if isinstance(error, Mapping) else []:
        delay = item.get("retryDelay") if isinstance(item, Mapping) else None
        match = re.fullmatch(r"(\d+(?:\.\d+)?)s", str(delay or ""))
        if match:
            return float(match.group(1))
    return None


@dataclass
class _StreamState:
    """Collects text, function calls, the finish reason and usage across response chunks."""

    finish: Any = None
    calls: int = 0
    usage: Usage = field(default_factory=Usage)
    model: str = ""


class GeminiProvider:
    """A `ChatProvider` for Gemini models through the Gemini Developer API.

    `base_url` points the SDK elsewhere (tests, proxies). Gemini 3 models attach a thought signature to
    function calls that must be echoed back; the adapter remembers the latest ones by call id.
    """

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        timeout: float = 60.0,
        context_window: int = 1_048_576,
        name: str = "gemini",
        vision: bool = True,
        key_env: str | None = "GEMINI_API_KEY",
    ) -> None:
        self.name = name
        self.model = model
        self.profile = ProviderProfile(
            native_tools=True,
            vision=vision,
            context_window=context_window,
            streaming=True,
            json_schema=True,
            local=False,
        )
        genai = import_sdk("google.genai", "google-genai")
        self._types = import_sdk("google.genai.types", "google-genai")
        self._errors = import_sdk("google.genai.errors", "google-genai")
        self._ctx = ErrorContext(name, model, key_env, timeout, api_key)
        self._transport_errors = transport_errors()
        self._signatures: OrderedDict[str, bytes] = OrderedDict()
        options = self._types.HttpOptions(
            base_url=base_url or GEMINI_DEFAULT_BASE_URL,
            timeout=int(timeout * 1000),
            retry_options=self._types.HttpRetryOptions(attempts=1),
        )
        self._client = genai.Client(api_key=api_key or "missing", vertexai=False, http_options=options)

    # --- request building

    def _parts(self, message: Message, call_names: Mapping[str, str]) -> list[Any]:
        types = self._types
        if message.role == "tool":
            name = message.name or call_names.get(message.tool_call_id or "", "")
            response = types.FunctionResponse(name=name, response={"output": message.content})
            return [types.Part(function_response=response)]
        parts = [types.Part(text=message.content)] if message.content else []
        if self.profile.vision and message.role == "user":  # bytes: the SDK sends them as inline_data
            parts += [types.Part.from_bytes(data=i.data, mime_type=i.media_type) for i in message.images]
        for call in message.tool_calls if message.role == "assistant" else ():
            parts.append(
                types.Part(
                    function_call=types.FunctionCall(name=call.name, args=dict(call.arguments)),
                    thought_signature=self._signatures.get(call.id),
                )
            )
        return parts

    def _contents(self, messages: Sequence[Message]) -> tuple[str, list[Any]]:
        system: list[str] = []
        contents: list[Any] = []
        call_names = {c.id: c.name for m in messages for c in m.tool_calls}
        for message in messages:
            if message.role == "system":
                system.append(message.content)
                continue
            role = "model" if message.role == "assistant" else "user"
            parts = self._parts(message, call_names)
            if not parts:
                continue
            if contents and contents[-1].role == role:
                contents[-1].parts.extend(parts)
            else:
                contents.append(self._types.Content(role=role, parts=parts))
        return "\n\n".join(s for s in system if s), contents

    def _tool_config(self, choice: str | None) -> Any:
        types = self._types
        if choice is None or choice == "auto":
            return None
        if choice in ("none", "required"):
            mode = "NONE" if choice == "none" else "ANY"
            return types.ToolConfig(function_calling_config=types.FunctionCallingConfig(mode=mode))
        config = types.FunctionCallingConfig(mode="ANY", allowed_function_names=[choice])
        return types.ToolConfig(function_calling_config=config)

    def _config(self, request: ChatRequest, system: str) -> Any:
        types = self._types
        config: dict[str, Any] = {
            "temperature": request.temperature,
            "max_output_tokens": request.max_tokens,
            "automatic_function_calling": types.AutomaticFunctionCallingConfig(disable=True),
        }
        if system:
            config["system_instruction"] = system
        if request.stop:
            config["stop_sequences"] = list(request.stop)
        if request.tools:
            declarations = [
                types.FunctionDeclaration(
                    name=t.name, description=t.description, parameters_json_schema=t.parameters
                )
                for t in request.tools
            ]
            config["tools"] = [types.Tool(function_declarations=declarations)]
            config["tool_config"] = self._tool_config(request.tool_choice)
        if request.response_schema is not None:
            config["response_mime_type"] = "application/json"
            config["response_json_schema"] = request.response_schema
        return types.GenerateContentConfig(**config)

    # --- response reading

    def _error(self, exc: BaseException, in_stream: bool = False) -> ProviderError:
        if isinstance(exc, self._errors.APIError):
            code = int(exc.code or 0)
            detail = str(exc.message or exc.status or "")
            if code == 400 and "API key not valid" in detail:
                code = 401  # Gemini answers a bad key with 400 INVALID_ARGUMENT
            if in_stream and code < 400:
                return self._ctx.truncated(f"stream was cut off: {detail}")
            headers = getattr(getattr(exc, "response", None), "headers", None)
            retry_after = parse_retry_after(headers) or _retry_delay(exc.details)
            return self._ctx.http(code, detail, retry_after)
        if in_stream:
            if isinstance(exc, json.JSONDecodeError):
                return self._ctx.truncated("stream was cut off: the server sent a malformed event")
            return self._ctx.truncated("stream was cut off: the connection was lost")
        if isinstance(exc, self._errors.UnknownApiResponseError | json.JSONDecodeError):
            return ProviderError(
                f"{self.name} sent an unreadable response", retryable=True, provider=self.name
            )
        return self._ctx.connection(timed_out="timeout" in type(exc).__name__.lower())

    def _read_parts(self, response: Any, state: _StreamState) -> list[StreamPart]:
        """Turn one response (or stream chunk) into parts, updating finish, usage and model."""
        state.model = getattr(response, "model_version", None) or state.model
        if response.usage_metadata is not None:
            state.usage = _usage(response.usage_metadata)
        if not response.candidates:
            block = getattr(response.prompt_feedback, "block_reason", None)
            if block is not None:
                raise ProviderError(
                    f"{self.name} blocked the prompt ({getattr(block, 'name', block)})", provider=self.name
                )
            return []
        candidate = response.candidates[0]
        out: list[StreamPart] = []
        for part in (candidate.content.parts if candidate.content else None) or []:
            if part.function_call is not None:
                out.append(ToolCallPart(self._call(part)))
                state.calls += 1
            elif part.text and not part.thought:
                out.append(TextPart(part.text))
        if candidate.finish_reason is not None:
            state.finish = candidate.finish_reason
        return out

    def _call(self, part: Any) -> ToolCall:
        call = part.function_call
        call_id = call.id or f"call_{uuid.uuid4().hex[:12]}"
        if part.thought_signature:
            self._signatures[call_id] = part.thought_signature
            while len(self._signatures) > _SIGNATURE_MEMORY:
                self._signatures.popitem(last=False)
        return ToolCall(call_id, call.name or "", dict(call.args or {}))

    def _request(self, request: ChatRequest) -> dict[str, Any]:
        system, contents = self._contents(request.messages)
        return {"model": self.model, "contents": contents, "config": self._config(request, system)}

    async def complete(self, request: ChatRequest) -> ModelResponse:
        """One whole answer: text parts joined, `functionCall` parts as tool calls."""
        try:
            response = await self._client.aio.models.generate_content(**self._request(request))
        except (self._errors.APIError, self._errors.UnknownApiResponseError, *self._transport_errors) as exc:
            raise self._error(exc) from exc
        state = _StreamState()
        parts = self._read_parts(response, state)
        if state.finish is None:
            raise self._ctx.truncated("returned an unfinished answer")
        return ModelResponse(
            text="".join(p.text for p in parts if isinstance(p, TextPart)),
            tool_calls=tuple(p.call for p in parts if isinstance(p, ToolCallPart)),
            usage=state.usage,
            model=state.model or self.model,
            finish_reason=_finish_reason(state.finish, state.calls > 0),
        )

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        """Text and tool calls chunk by chunk, then one `FinishPart` once a chunk carried `finishReason`."""
        errors = (self._errors.APIError, self._errors.UnknownApiResponseError, *self._transport_errors)
        try:
            chunks = await self._client.aio.models.generate_content_stream(**self._request(request))
        except errors as exc:
            raise self._error(exc) from exc
        state = _StreamState()
        received = False
        try:
            async for chunk in chunks:
                received = True
                for part in self._read_parts(chunk, state):
                    yield part
        except errors as exc:
            raise self._error(exc, in_stream=received) from exc
        if state.finish is None:
            raise self._ctx.truncated("stream ended without a finishReason")
        yield FinishPart(
            _finish_reason(state.finish, state.calls > 0), state.usage, state.model or self.model
        )

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.aio.aclose()
