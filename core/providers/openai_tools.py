"""Tool calls through OpenAI-compatible servers as they really send them.

OpenAI, vLLM, Ollama, LM Studio and the llama.cpp server all speak `/v1/chat/completions`, but their tool
calls differ in the details: arguments come as a JSON string, a JSON object, an empty string or `null`;
ids are missing, empty or repeated; streamed deltas carry the id and name only on the first chunk, may
lack `index`, or repeat index 0 for parallel calls; the final `finish_reason` may say "stop" although
calls were made. One tolerant reader handles all of that, so the same code path serves every server.

Only `tool_choice` truly differs per server (some ignore it, some refuse a named tool), so the dialect
table below holds only that; `docs/providers.md` lists the servers and their quirks.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from core.errors import ConfigError
from core.providers.text_tool_calls import read_text_calls
from core.types import ChatRequest, Message, ToolCall, ToolSpec

INVALID_ARGUMENTS_KEY = "_invalid_arguments"
"""Key of the single entry `parse_tool_arguments` returns when the model sent arguments that are not a
JSON object; the agent loop sends `invalid_arguments_error` back to the model instead of running the tool."""

_RAW_PREVIEW = 200  # characters of unreadable arguments quoted back to the model


# --- Dialects -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dialect:
    """What one server family honours of `tool_choice`: a subset of "none", "auto", "required", "named"."""

    name: str
    tool_choices: frozenset[str]


DIALECTS: Mapping[str, Dialect] = MappingProxyType(
    {
        "openai": Dialect("openai", frozenset({"none", "auto", "required", "named"})),
        # vLLM refuses an explicit "auto" unless started with --enable-auto-tool-choice; it is the default
        # anyway when tools are sent, so it is left out rather than sent.
        "vllm": Dialect("vllm", frozenset({"none", "required", "named"})),
        # llama.cpp throws "Invalid tool_choice" on the object form; LM Studio ignores it.
        "llamacpp": Dialect("llamacpp", frozenset({"none", "auto", "required"})),
        "lmstudio": Dialect("lmstudio", frozenset({"none", "auto", "required"})),
        # Ollama accepts the field and ignores it.
        "ollama": Dialect("ollama", frozenset()),
    }
)


def dialect_named(name: str) -> Dialect:
    """The dialect for a `providers.NAME.dialect` value; an unknown one is a `ConfigError`."""
    try:
        return DIALECTS[name]
    except KeyError:
        known = ", ".join(DIALECTS)
        raise ConfigError(f"unknown OpenAI-compatible dialect {name!r}; use one of: {known}") from None


def tool_params(dialect: Dialect, tools: Sequence[ToolSpec], choice: str | None) -> dict[str, Any]:
    """The request's `tools` and `tool_choice`, limited to what the server honours.

    A server that cannot be told "none" is offered no tools; one that cannot be told to use a named tool
    is offered only that tool (with "required" where it understands that).
    """
    if not tools:
        return {}
    form = None if choice is None else (choice if choice in ("none", "auto", "required") else "named")
    if form == "none" and "none" not in dialect.tool_choices:
        return {}
    offered = tools
    if form == "named" and "named" not in dialect.tool_choices:
        offered = tuple(t for t in tools if t.name == choice) or tuple(tools)
    params: dict[str, Any] = {"tools": [_tool_schema(t) for t in offered]}
    if form in dialect.tool_choices:
        named = {"type": "function", "function": {"name": choice}}
        params["tool_choice"] = named if form == "named" else form
    elif form == "named" and "required" in dialect.tool_choices:
        params["tool_choice"] = "required"  # only the named tool is offered, so this forces it
    return params


def _tool_schema(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": spec.name, "description": spec.description, "parameters": spec.parameters},
    }


# --- Arguments ------------------------------------------------------------------------------------


def parse_tool_arguments(raw: object) -> dict[str, Any]:
    """Decode a model's tool arguments, as a JSON string or an already decoded object.

    Empty, blank, `null` and "null" mean no arguments; a JSON string holding JSON (double-encoded, as some
    servers send) is decoded once more. Anything else that is not a JSON object becomes
    `{INVALID_ARGUMENTS_KEY: raw text}`.
    """
    if raw is None:
        return {}
    if isinstance(raw, Mapping):
        return dict(raw)
    text = raw if isinstance(raw, str) else json.dumps(raw, default=str)
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {INVALID_ARGUMENTS_KEY: text}
    if isinstance(value, str) and value.strip().startswith("{"):
        value = parse_tool_arguments(value)
        return {INVALID_ARGUMENTS_KEY: text} if INVALID_ARGUMENTS_KEY in value else value
    if value is None:
        return {}
    return value if isinstance(value, dict) else {INVALID_ARGUMENTS_KEY: text}


def invalid_arguments_error(call: ToolCall) -> str | None:
    """The error the model reads when its arguments for `call` could not be read, or None if they could."""
    raw = call.arguments.get(INVALID_ARGUMENTS_KEY)
    if raw is None:
        return None
    shown = str(raw)
    shown = shown if len(shown) <= _RAW_PREVIEW else shown[:_RAW_PREVIEW] + "…"
    return (
        f"The arguments of tool '{call.name}' are not a valid JSON object: {shown}. Call the tool again "
        'with its arguments as one JSON object in double quotes, e.g. {"key": "value"}.'
    )


# --- Reading calls --------------------------------------------------------------------------------


class RawCall(NamedTuple):
    """A call as the server sent it: id and name possibly empty, arguments not yet decoded."""

    id: str
    name: str
    arguments: object


def field_of(obj: object, name: str) -> Any:
    """An attribute of an SDK object or a key of a dict; None when absent (servers omit fields)."""
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def message_calls(tool_calls: Iterable[object] | None) -> list[RawCall]:
    """The calls of a whole (non-streamed) assistant message."""
    found: list[RawCall] = []
    for item in tool_calls or ():
        function = field_of(item, "function")
        name = field_of(function, "name") if function is not None else None
        arguments = field_of(function, "arguments") if function is not None else None
        if name or arguments:
            found.append(RawCall(str(field_of(item, "id") or ""), str(name or ""), arguments))
    return found


@dataclass
class _Slot:
    """One call being assembled from stream deltas."""

    id: str = ""
    name: str = ""
    pieces: list[str] = field(default_factory=list)

    def add_arguments(self, value: object) -> None:
        if isinstance(value, Mapping):  # a whole object at once replaces what came before
            self.pieces = [json.dumps(value)]
        elif isinstance(value, str):
            self.pieces.append(value)
        elif value is not None:
            self.pieces.append(json.dumps(value, default=str))

    def complete(self) -> bool:
        """Whether the arguments so far already form a whole JSON object (nothing may follow)."""
        text = "".join(self.pieces).strip()
        if not text.endswith("}"):
            return False
        try:
            return isinstance(json.loads(text), dict)
        except json.JSONDecodeError:
            return False


class CallAccumulator:
    """Joins streamed tool-call deltas into whole calls.

    Deltas are matched by `index`; without one (some llama.cpp builds) a delta continues the latest call.
    A delta starts a new call when it brings a different id, or a name while the current call already has
    a different name, or its name again after the current call's arguments are complete (Ollama sends
    parallel calls whole, sometimes all at index 0 and without ids). A name repeated on every chunk of a
    call whose arguments are still arriving (some servers do) is not a new call.
    """

    def __init__(self) -> None:
        self._slots: list[_Slot] = []
        self._by_index: dict[int, _Slot] = {}

    def feed(self, delta: object) -> None:
        """Add one entry of a chunk's `delta.tool_calls`."""
        index = field_of(delta, "index")
        index = index if isinstance(index, int) else None
        cid = str(field_of(delta, "id") or "")
        function = field_of(delta, "function")
        name = str(field_of(function, "name") or "") if function is not None else ""
        arguments = field_of(function, "arguments") if function is not None else None
        last = self._slots[-1] if self._slots else None
        current = self._by_index.get(index) if index is not None else last
        if current is None or _starts_new(current, cid, name):
            current = _Slot()
            self._slots.append(current)
            if index is not None:
                self._by_index[index] = current
        current.id = current.id or cid
        current.name = current.name or name
        current.add_arguments(arguments)

    def calls(self) -> list[RawCall]:
        """The calls in the order they started (empty slots left out)."""
        return [RawCall(s.id, s.name, "".join(s.pieces)) for s in self._slots if s.name or s.pieces]


def _starts_new(current: _Slot, cid: str, name: str) -> bool:
    if cid and current.id and cid != current.id:
        return True
    if not name or not current.name:
        return False
    return name != current.name or current.complete()


# --- Settling a response --------------------------------------------------------------------------


@dataclass(frozen=True)
class CallReader:
    """Turns what a server sent for one request into `ToolCall`s with unique ids.

    `names` are the tools offered (a call written as text is only taken for one of them when it is a bare
    JSON object); `taken` are the ids already in the conversation; `seed` makes generated ids differ from
    one request to the next yet stay the same for the same request.
    """

    names: frozenset[str]
    taken: frozenset[str]
    seed: str

    @classmethod
    def for_request(cls, request: ChatRequest) -> CallReader:
        """The reader for the answer to `request`."""
        names = frozenset(t.name for t in request.tools)
        return cls(names, frozenset(_ids_in(request.messages)), str(len(request.messages)))

    def settle(self, text: str, raw: Sequence[RawCall]) -> tuple[str, tuple[ToolCall, ...]]:
        """(visible text, calls). Without native calls, a call the model wrote as text is taken instead."""
        if not raw and self.names and text:
            text, written = read_text_calls(text, self.names)
            raw = [RawCall("", name, arguments) for name, arguments in written]
        return text, self._with_ids(raw)

    def _with_ids(self, raw: Sequence[RawCall]) -> tuple[ToolCall, ...]:
        used = set(self.taken)
        calls: list[ToolCall] = []
        for position, item in enumerate(raw):
            arguments = parse_tool_arguments(item.arguments)
            name = item.name or "(missing name)"
            cid = item.id
            if not cid or cid in used:
                cid = self._new_id(position, name, arguments, used)
            used.add(cid)
            calls.append(ToolCall(cid, name, arguments))
        return tuple(calls)

    def _new_id(self, position: int, name: str, arguments: dict[str, Any], used: set[str]) -> str:
        """A stable id for a call the server gave none (or a duplicate) for."""
        basis = f"{self.seed}|{position}|{name}|{json.dumps(arguments, sort_keys=True, default=str)}"
        digest = hashlib.sha256(basis.encode()).hexdigest()[:12]
        for attempt in itertools.count():
            cid = f"call_{digest}" if attempt == 0 else f"call_{digest}_{attempt}"
            if cid not in used:
                return cid
        raise AssertionError("unreachable")  # pragma: no cover


def _ids_in(messages: Iterable[Message]) -> set[str]:
    ids = {m.tool_call_id for m in messages if m.tool_call_id}
    ids.update(c.id for m in messages for c in m.tool_calls if c.id)
    return ids


def finish_reason(reason: str | None, has_calls: bool) -> str:
    """The neutral finish reason: "tool_calls" whenever calls were made (LM Studio and older Ollama say
    "stop"), unless the answer was cut by the length limit."""
    if has_calls and reason != "length":
        return "tool_calls"
    return "tool_calls" if reason == "function_call" else (reason or "stop")
