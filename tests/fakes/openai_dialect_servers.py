"""Fake vLLM, Ollama, LM Studio and llama.cpp servers: their own `/v1/chat/completions` wire formats.

Each class answers the real `openai` SDK over 127.0.0.1 the way that server family does, JSON or SSE, with
the quirks users meet: Ollama's whole calls in one chunk and ids that some versions leave out, LM Studio's
numeric ids, missing `content` and absent stream usage, llama.cpp's `timings`, usage inside the finishing
chunk and deltas without `index`, vLLM's `chatcmpl-tool-…` ids and name-only first delta. The HTTP plumbing,
request recording and script queue come from `tests/contract/fake_servers.py`; a `Turn` adds the quirk
knobs a test can turn on (older versions, other builds) over each server's usual format.
"""

from __future__ import annotations

import json
import random
import string
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tests.contract.fake_servers import FakeServer, RecordedRequest, Step, pieces, sse


@dataclass(frozen=True)
class Call:
    """A call the fake model makes. A dict `arguments` is encoded the server's way; a str is sent verbatim
    (invalid JSON, ""), None is sent as JSON null."""

    name: str
    arguments: object = field(default_factory=dict)


@dataclass(frozen=True)
class Turn(Step):
    """One scripted answer.

    `ids`: "server" (the server's own scheme), "missing" (no id key), "empty" (""), or any other value
    used as the id of every call (duplicates). `args_as`: "string" or "object" (the JSON object itself).
    `index`: "present", "missing" (no index key) or "zero" (every call at index 0). `interleave`: streamed
    argument pieces of parallel calls alternate. `finish`: the finish_reason to send instead of the
    server's. `usage`: False to leave usage out. `arg_pieces`: how many chunks each call's arguments take.
    """

    tool_calls: tuple[Call, ...] = ()
    ids: str = "server"
    args_as: str = "string"
    index: str = "present"
    interleave: bool = False
    finish: str | None = None
    usage: bool = True
    arg_pieces: int = 4


def said(text: str, **quirks: Any) -> Turn:
    """A text answer."""
    return Turn(text=text, **quirks)


def calls(*made: Call, text: str = "", **quirks: Any) -> Turn:
    """An answer that makes native tool calls."""
    return Turn(text=text, tool_calls=made, **quirks)


class DialectServer(FakeServer):
    """The parts every dialect shares: arguments and ids per quirk, usage numbers, request helpers."""

    dialect: ClassVar[str] = "openai"

    def __init__(self, seed: int = 7) -> None:
        super().__init__()
        self._random = random.Random(seed)
        self.sent_ids: list[str | None] = []  # the ids of the latest answer's calls (None: left out)

    def is_stream(self, request: RecordedRequest) -> bool:
        return bool(request.body.get("stream"))

    def wants_usage(self, request: RecordedRequest) -> bool:
        return bool((request.body.get("stream_options") or {}).get("include_usage"))

    def server_id(self) -> str:
        """A tool-call id in this server's scheme."""
        return "call_" + self.token(24)

    def token(self, size: int, alphabet: str = string.ascii_letters + string.digits) -> str:
        return "".join(self._random.choice(alphabet) for _ in range(size))

    def arguments(self, call: Call, turn: Turn) -> object:
        if not isinstance(call.arguments, dict):
            return call.arguments
        return call.arguments if turn.args_as == "object" else json.dumps(call.arguments)

    def ids(self, turn: Turn) -> list[str | None]:
        """One id per call; None means the key is left out."""
        if turn.ids == "server":
            self.sent_ids = [self.server_id() for _ in turn.tool_calls]
        else:
            fixed = {"missing": None, "empty": ""}.get(turn.ids, turn.ids)
            self.sent_ids = [fixed for _ in turn.tool_calls]
        return list(self.sent_ids)

    def whole_calls(self, turn: Turn, with_index: bool = False) -> list[dict[str, Any]]:
        """The calls of a non-streamed message (or of one delta that carries them whole)."""
        out: list[dict[str, Any]] = []
        for position, (call, cid) in enumerate(zip(turn.tool_calls, self.ids(turn), strict=True)):
            item: dict[str, Any] = {"type": "function"}
            if cid is not None:
                item["id"] = cid
            if with_index and turn.index != "missing":
                item["index"] = 0 if turn.index == "zero" else position
            item["function"] = {"name": call.name, "arguments": self.arguments(call, turn)}
            out.append(item)
        return out

    def split_calls(self, turn: Turn) -> list[dict[str, Any]]:
        """Streamed tool-call deltas: id, type and name first, then the arguments in pieces."""
        per_call: list[list[dict[str, Any]]] = []
        for position, (call, cid) in enumerate(zip(turn.tool_calls, self.ids(turn), strict=True)):
            index = {"present": position, "zero": 0}.get(turn.index)
            head = self.head_delta(call, cid)
            arguments = self.arguments(call, turn)
            tail = [{"function": {"arguments": piece}} for piece in self.argument_pieces(arguments, turn)]
            deltas = [head, *tail]
            if index is not None:
                deltas = [{"index": index, **d} for d in deltas]
            per_call.append(deltas)
        if turn.interleave:
            longest = max(len(d) for d in per_call)
            return [d[i] for i in range(longest) for d in per_call if i < len(d)]
        return [d for deltas in per_call for d in deltas]

    def head_delta(self, call: Call, cid: str | None) -> dict[str, Any]:
        head: dict[str, Any] = {"type": "function", "function": {"name": call.name, "arguments": ""}}
        return head if cid is None else {"id": cid, **head}

    def argument_pieces(self, arguments: object, turn: Turn) -> Sequence[object]:
        if isinstance(arguments, str):
            return pieces(arguments, turn.arg_pieces)
        return [arguments]  # an object (or null) cannot be split: it comes whole

    def usage(self, turn: Turn) -> dict[str, Any]:
        total = turn.input_tokens + turn.output_tokens
        return {
            "prompt_tokens": turn.input_tokens,
            "completion_tokens": turn.output_tokens,
            "total_tokens": total,
        }

    def finish(self, turn: Turn) -> str:
        return turn.finish or ("tool_calls" if turn.tool_calls else "stop")

    def model(self, request: RecordedRequest) -> str:
        return str(request.body["model"])


# --- vLLM --------------------------------------------------------------------------------------


class VLLMServer(DialectServer):
    """vLLM's OpenAI server: OpenAI's format plus `stop_reason`, `reasoning_content`, `prompt_logprobs`."""

    dialect = "vllm"
    vendor = "vllm"

    def server_id(self) -> str:
        return "chatcmpl-tool-" + self.token(32, "0123456789abcdef")

    def head_delta(self, call: Call, cid: str | None) -> dict[str, Any]:
        head: dict[str, Any] = {"type": "function", "function": {"name": call.name}}  # no arguments key
        return head if cid is None else {"id": cid, **head}

    def envelope(self, request: RecordedRequest, kind: str, **fields: Any) -> dict[str, Any]:
        base = {"id": "chatcmpl-" + self.token(32, "0123456789abcdef"), "object": kind}
        return {**base, "created": int(time.time()), "model": self.model(request), **fields}

    def body(self, step: Step, request: RecordedRequest) -> dict[str, Any]:
        turn = _turn(step)
        message: dict[str, Any] = {
            "role": "assistant",
            "reasoning_content": None,
            "content": turn.text or None,
        }
        message["tool_calls"] = self.whole_calls(turn)
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": self.finish(turn)}
        choice["stop_reason"] = None
        usage = {**self.usage(turn), "prompt_tokens_details": None} if turn.usage else None
        return self.envelope(
            request,
            "chat.completion",
            choices=[choice],
            usage=usage,
            prompt_logprobs=None,
            kv_transfer_params=None,
        )

    def events(self, step: Step, request: RecordedRequest) -> list[bytes]:
        turn = _turn(step)
        with_usage = self.wants_usage(request) and turn.usage
        extra = {"usage": None} if with_usage else {}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            if finish:
                choice["stop_reason"] = None
            return sse(self.envelope(request, "chat.completion.chunk", choices=[choice], **extra))

        out = [chunk({"role": "assistant", "content": ""})]
        out += [chunk({"content": piece}) for piece in pieces(turn.text)]
        out += [chunk({"tool_calls": [delta]}) for delta in self.split_calls(turn)]
        out.append(chunk({"content": ""}, self.finish(turn)))
        if with_usage:
            out.append(
                sse(self.envelope(request, "chat.completion.chunk", choices=[], usage=self.usage(turn)))
            )
        return [*out, sse("[DONE]")]


# --- Ollama ------------------------------------------------------------------------------------


class OllamaServer(DialectServer):
    """Ollama's `/v1` compatibility layer: `system_fingerprint: fp_ollama`, `call_` + 8 characters ids,
    every call whole in one delta (with `index` in recent versions), `content: ""` beside tool calls."""

    dialect = "ollama"
    vendor = "ollama"

    def server_id(self) -> str:
        return "call_" + self.token(8, string.ascii_lowercase + string.digits)

    def envelope(self, request: RecordedRequest, kind: str, **fields: Any) -> dict[str, Any]:
        base = {
            "id": f"chatcmpl-{self._random.randint(100, 999)}",
            "object": kind,
            "created": int(time.time()),
        }
        return {**base, "model": self.model(request), "system_fingerprint": "fp_ollama", **fields}

    def body(self, step: Step, request: RecordedRequest) -> dict[str, Any]:
        turn = _turn(step)
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if turn.tool_calls:
            message["tool_calls"] = self.whole_calls(turn, with_index=True)
        choice = {"index": 0, "message": message, "finish_reason": self.finish(turn)}
        usage = self.usage(turn) if turn.usage else None
        return self.envelope(request, "chat.completion", choices=[choice], usage=usage)

    def events(self, step: Step, request: RecordedRequest) -> list[bytes]:
        turn = _turn(step)

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": {"role": "assistant", **delta}, "finish_reason": finish}
            return sse(self.envelope(request, "chat.completion.chunk", choices=[choice]))

        out = [chunk({"content": piece}) for piece in pieces(turn.text)]
        whole = self.whole_calls(turn, with_index=True)
        if turn.index == "zero":  # that bug shows as one call per chunk, each at index 0
            out += [chunk({"content": "", "tool_calls": [call]}) for call in whole]
        elif whole:
            out.append(chunk({"content": "", "tool_calls": whole}))
        out.append(chunk({"content": ""}, self.finish(turn)))
        if self.wants_usage(request) and turn.usage:
            out.append(
                sse(self.envelope(request, "chat.completion.chunk", choices=[], usage=self.usage(turn)))
            )
        return [*out, sse("[DONE]")]


# --- LM Studio ---------------------------------------------------------------------------------


class LMStudioServer(DialectServer):
    """LM Studio's server: numeric-string ids, no `content` key beside tool calls, `stats` and a
    `system_fingerprint` naming the model, `type` repeated on every argument delta, no usage when
    streaming."""

    dialect = "lmstudio"
    vendor = "lmstudio"

    def server_id(self) -> str:
        return str(self._random.randint(100_000_000, 999_999_999))

    def envelope(self, request: RecordedRequest, kind: str, **fields: Any) -> dict[str, Any]:
        base = {"id": "chatcmpl-" + self.token(22, string.ascii_lowercase + string.digits), "object": kind}
        return {**base, "created": int(time.time()), "model": self.model(request), **fields}

    def body(self, step: Step, request: RecordedRequest) -> dict[str, Any]:
        turn = _turn(step)
        message: dict[str, Any] = {"role": "assistant"}
        if turn.text or not turn.tool_calls:
            message["content"] = turn.text
        if turn.tool_calls:
            message["tool_calls"] = self.whole_calls(turn)
        choice = {"index": 0, "logprobs": None, "finish_reason": self.finish(turn), "message": message}
        usage = self.usage(turn) if turn.usage else None
        return self.envelope(
            request,
            "chat.completion",
            choices=[choice],
            usage=usage,
            stats={},
            system_fingerprint=self.model(request),
        )

    def events(self, step: Step, request: RecordedRequest) -> list[bytes]:
        turn = _turn(step)

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            fingerprint = self.model(request)
            return sse(
                self.envelope(
                    request, "chat.completion.chunk", system_fingerprint=fingerprint, choices=[choice]
                )
            )

        out = [chunk({"role": "assistant", "content": piece}) for piece in pieces(turn.text)]
        for delta in self.split_calls(turn):
            out.append(chunk({"tool_calls": [{"type": "function", **delta}]}))
        out.append(chunk({}, self.finish(turn)))
        return [*out, sse("[DONE]")]


# --- llama.cpp ---------------------------------------------------------------------------------


class LlamaCppServer(DialectServer):
    """llama.cpp's `llama-server --jinja`: 32-character ids, `content: null` beside tool calls, `timings`,
    the default model name `gpt-3.5-turbo`, usage inside the chunk that carries the finish reason."""

    dialect = "llamacpp"
    vendor = "llamacpp"

    def server_id(self) -> str:
        return self.token(32)

    def envelope(self, kind: str, **fields: Any) -> dict[str, Any]:
        head = {"created": int(time.time()), "model": "gpt-3.5-turbo", "system_fingerprint": "b6123-1d72c841"}
        return {**fields, **head, "object": kind, "id": "chatcmpl-" + self.token(32)}

    def timings(self, turn: Turn) -> dict[str, float]:
        return {
            "prompt_n": turn.input_tokens,
            "prompt_ms": 41.2,
            "predicted_n": turn.output_tokens,
            "predicted_ms": 230.5,
        }

    def body(self, step: Step, request: RecordedRequest) -> dict[str, Any]:
        turn = _turn(step)
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
        if turn.tool_calls:
            message["tool_calls"] = self.whole_calls(turn)
        choice = {"finish_reason": self.finish(turn), "index": 0, "message": message}
        fields: dict[str, Any] = {"choices": [choice]}
        if turn.usage:
            fields["usage"] = self.usage(turn)
        return self.envelope("chat.completion", **fields, timings=self.timings(turn))

    def events(self, step: Step, request: RecordedRequest) -> list[bytes]:
        turn = _turn(step)

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
            choice = {"finish_reason": finish, "index": 0, "delta": delta}
            return sse(self.envelope("chat.completion.chunk", choices=[choice], **extra))

        out = [chunk({"role": "assistant", "content": None})]
        out += [chunk({"content": piece}) for piece in pieces(turn.text)]
        out += [chunk({"tool_calls": [delta]}) for delta in self.split_calls(turn)]
        last: dict[str, Any] = {"timings": self.timings(turn)}
        if turn.usage:
            last["usage"] = self.usage(turn)
        out.append(chunk({}, self.finish(turn), **last))
        return [*out, sse("[DONE]")]


DIALECT_SERVERS: dict[str, type[DialectServer]] = {
    cls.dialect: cls for cls in (VLLMServer, OllamaServer, LMStudioServer, LlamaCppServer)
}


def _turn(step: Step) -> Turn:
    return step if isinstance(step, Turn) else Turn(text=step.text)
