"""A tool is declared once, as a typed Python function; its JSON schema is derived from that declaration.

    @tool
    def current_time(timezone: str = "UTC") -> str:
        '''Tell the current date and time.

        Args:
            timezone: IANA time-zone name such as "Europe/Paris".
        '''

The schema comes from the type hints (str, int, float, bool, list[...], dict, Literal[...], `X | None`);
parameters with defaults are optional. The docstring's text before its first section becomes the tool's
description and Google-style `Args:` lines become parameter descriptions. Tools never import the agent loop.
"""

from __future__ import annotations

import copy
import inspect
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, overload

from core.errors import ConfigError
from core.types import ToolSpec

# Providers agree on this name shape (OpenAI's is the strictest); checking here fails at declaration time.
_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SECTION_RE = re.compile(r"^(Args|Arguments|Parameters|Params|Returns?|Raises|Yields?|Examples?|Notes?):\s*$")
_ARG_LINE_RE = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SIMPLE_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


@dataclass(frozen=True, eq=False)
class Tool:
    """A callable the model may use: a name, a description, a JSON schema of its arguments and the function.

    `fn` may be sync (run in a worker thread) or async. `timeout_s` bounds one attempt; `retries` is how many
    extra attempts an unexpected exception earns (ToolRetry/ToolError and timeouts are never retried).
    `use_when` is an optional regular expression over the user's message: a `HintedToolGate` offers the
    tool only when it matches (small models call any tool they are offered). A tool with `side_effects`
    changes something outside the conversation; the agent only proposes such a call and the user approves it.
    `preview(arguments)` says in words what such a call would do ("Remind you Thu 10 Dec at 09:00: …"), for
    the user to approve; it raises ToolRetry when the arguments cannot be used, so the model is told (and
    asks the user) instead of the user approving a call that would fail.
    """

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., Any]
    timeout_s: float = 30.0
    retries: int = 0
    use_when: str | None = None
    side_effects: bool = False
    preview: Callable[[dict[str, Any]], str] | None = None
    is_async: bool = field(init=False)

    def __post_init__(self) -> None:
        if not _NAME_RE.match(self.name):
            raise ConfigError(f"tool name {self.name!r} must be 1-64 letters, digits, '_' or '-'")
        if self.timeout_s <= 0:
            raise ConfigError(f"tool {self.name!r}: timeout_s must be positive, got {self.timeout_s}")
        if self.retries < 0:
            raise ConfigError(f"tool {self.name!r}: retries must be >= 0, got {self.retries}")
        if self.use_when is not None:
            try:
                re.compile(self.use_when)
            except re.error as error:
                raise ConfigError(f"tool {self.name!r}: use_when is not a valid pattern: {error}") from None
        object.__setattr__(self, "is_async", inspect.iscoroutinefunction(self.fn))

    def spec(self) -> ToolSpec:
        """The provider-neutral description offered to a model (a copy: callers cannot change this tool)."""
        return ToolSpec(self.name, self.description, copy.deepcopy(self.parameters))

    def describe_call(self, arguments: dict[str, Any]) -> str:
        """What a call with `arguments` would do, in words ("" without a `preview`); ToolRetry if unusable."""
        return self.preview(arguments) if self.preview is not None else ""

    def wanted_for(self, message: str) -> bool:
        """Whether the user's message calls for this tool (always true without a `use_when` pattern)."""
        return self.use_when is None or re.search(self.use_when, message, re.IGNORECASE) is not None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly (no validation, timeout or retry)."""
        return self.fn(*args, **kwargs)

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout_s: float = 30.0,
        retries: int = 0,
        use_when: str | None = None,
        side_effects: bool = False,
        preview: Callable[[dict[str, Any]], str] | None = None,
    ) -> Tool:
        """Build a tool from a function's signature, type hints and docstring."""
        summary, arg_docs = parse_docstring(inspect.getdoc(fn) or "")
        return cls(
            name=name or fn.__name__,
            description=description or summary or (name or fn.__name__).replace("_", " "),
            parameters=schema_for_function(fn, arg_docs),
            fn=fn,
            timeout_s=timeout_s,
            retries=retries,
            use_when=use_when,
            side_effects=side_effects,
            preview=preview,
        )


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    timeout_s: float = 30.0,
    retries: int = 0,
    use_when: str | None = None,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout_s: float = 30.0,
    retries: int = 0,
    use_when: str | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function into a `Tool`: bare `@tool`, or `@tool(name=..., timeout_s=..., use_when=...)`."""

    def wrap(func: Callable[..., Any]) -> Tool:
        return Tool.from_function(
            func, name=name, description=description, timeout_s=timeout_s, retries=retries, use_when=use_when
        )

    return wrap(fn) if fn is not None else wrap


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {parameter: description}).

    The description is every paragraph before the first section header, each paragraph joined onto one
    line. An argument's description may continue on more-indented lines.
    """
    intro: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    arg_indent: int | None = None
    for raw in inspect.cleandoc(doc).splitlines():
        line, indent = raw.strip(), len(raw) - len(raw.lstrip())
        header = _SECTION_RE.match(line)
        if header and indent == 0:
            section, current, arg_indent = header.group(1), None, None
        elif section is None:
            intro.append(line)
        elif section in ("Args", "Arguments", "Parameters", "Params") and line:
            match = _ARG_LINE_RE.match(line)
            # Argument lines share the section's first indent; anything deeper continues the previous one.
            if match and (arg_indent is None or indent <= arg_indent):
                arg_indent, current = indent, match.group(1).lstrip("*")
                args[current] = match.group(2).strip()
            elif current is not None:
                args[current] = f"{args[current]} {line}".strip()
    return "\n\n".join(_paragraphs(intro)), args


def _paragraphs(lines: list[str]) -> list[str]:
    out: list[str] = []
    buf: list[str] = []
    for line in [*lines, ""]:
        if line:
            buf.append(line)
        elif buf:
            out.append(" ".join(buf))
            buf = []
    return out


def schema_for_function(fn: Callable[..., Any], arg_docs: dict[str, str] | None = None) -> dict[str, Any]:
    """The JSON schema (an object) of a function's parameters, from its signature and type hints."""
    docs = arg_docs or {}
    hints = typing.get_type_hints(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ConfigError(f"tool {fn.__name__!r}: *args/**kwargs cannot be described to a model")
        prop = type_schema(hints.get(param.name, Any))
        if param.name in docs:
            prop["description"] = docs[param.name]
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
        elif _is_json_value(param.default):
            prop["default"] = param.default
        properties[param.name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def type_schema(annotation: Any) -> dict[str, Any]:
    """The JSON schema of one Python type annotation (unknown types and `Any` accept any value)."""
    if annotation in _SIMPLE_TYPES:
        return {"type": _SIMPLE_TYPES[annotation]}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Literal:
        return _literal_schema(args)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        inner = type_schema(members[0]) if len(members) == 1 else {"anyOf": [type_schema(a) for a in members]}
        return _nullable(inner) if len(members) < len(args) else inner
    if annotation in (list, tuple) or origin in (list, tuple):
        # list[X] and tuple[X, ...] are homogeneous; other tuples are described as plain arrays.
        homogeneous = origin is list or (origin is tuple and len(args) == 2 and args[1] is Ellipsis)
        if homogeneous and args[0] is not Any:
            return {"type": "array", "items": type_schema(args[0])}
        return {"type": "array"}
    if annotation is dict or origin is dict:
        if len(args) == 2 and args[1] is not Any:
            return {"type": "object", "additionalProperties": type_schema(args[1])}
        return {"type": "object"}
    return {}


def _literal_schema(values: tuple[Any, ...]) -> dict[str, Any]:
    kinds = {_SIMPLE_TYPES.get(type(v)) for v in values}
    schema: dict[str, Any] = {"enum": list(values)}
    if len(kinds) == 1 and None not in kinds:
        schema["type"] = kinds.pop()
    return schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """Allow null too: models often send null for an optional argument they mean to leave out."""
    if isinstance(schema.get("type"), str):
        out = {**schema, "type": [schema["type"], "null"]}
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    return {"anyOf": [schema, {"type": "null"}]} if schema else {}


def _is_json_value(value: Any) -> bool:
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, list | tuple):
        return all(_is_json_value(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json_value(v) for k, v in value.items())
    return False
