"""JSON-schema-constrained output for a local model that has no grammar engine (the transformers backend).

Small and honest rather than a general grammar compiler:
- Tool-call schemas (`{"oneOf": [{tool: const NAME, arguments: {...}}, ..., {answer: string}]}`): the
  branch is chosen from the model's log-likelihoods, then the JSON skeleton is forced as a prefix and the
  model writes only leaf values (a string up to its closing quote, a number). A direct answer is free
  text, wrapped (the model writes far better prose than JSON-escaped prose). Scoring "direct" rates each
  opening (`{"tool": "get_weather"`, `{"answer": "`) after the prompt; "channel" (default) rates the
  user's request given each tool's description (noisy-channel classification, which a 135M model does
  far better: see docs/local_model_measurements.md).
- Other object schemas are filled the same way; anything else gets prefix-forced generation, the first
  balanced JSON value, and validation. Results are validated with `jsonschema`, repaired once, else
  `ProviderError`. Bounded: a token cap per leaf, a depth cap, and the caller's deadline (in the LM).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from core.errors import ProviderError
from core.providers.side_call import json_in

STRING_TOKENS = 48
NUMBER_TOKENS = 12
GENERIC_TOKENS = 256
MAX_DEPTH = 4
DESCRIPTION_CHARS = 200
REQUEST_CHARS = 600
CHANNEL_SYSTEM = "You write example user messages."
CHANNEL_TEMPLATE = "Write a message from a user who wants to {description}."
ANSWER_DESCRIPTION = "answer a general question, chat or write something"
ARG_KEYS = ("arguments", "args", "parameters", "input")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")

Messages = list[dict[str, str]]


class ConstrainLM(Protocol):
    """The two primitives the constrained path needs."""

    def score(self, messages: Messages, prefix: str, candidates: Sequence[str]) -> list[float]:
        """Log-likelihood of each candidate continuation after the prompt plus `prefix`."""

    def complete_text(
        self,
        messages: Messages,
        prefix: str,
        *,
        max_tokens: int,
        stop: Sequence[str],
        temperature: float = 0.0,
        schema: dict[str, Any] | None = None,
    ) -> str:
        """Continuation (greedy by default) of the prompt plus `prefix`, cut before the first stop
        string; `schema` (grammar backends only, no prefix) constrains it to that JSON schema."""


@dataclass(frozen=True)
class Branch:
    """One alternative of a tool-call schema: a tool (`name` set) or a direct answer (`answer_key` set)."""

    schema: dict[str, Any]
    name: str | None = None
    args_key: str = "arguments"
    args_schema: dict[str, Any] = field(default_factory=dict)
    answer_key: str | None = None

    @property
    def opening(self) -> str:
        if self.name is not None:
            return '{"tool": ' + json.dumps(self.name)
        return "{" + json.dumps(self.answer_key) + ': "'


def _tool_name(prop: Any) -> str | None:
    if not isinstance(prop, dict):
        return None
    if isinstance(prop.get("const"), str):
        return prop["const"]
    enum = prop.get("enum")
    return enum[0] if isinstance(enum, list) and len(enum) == 1 and isinstance(enum[0], str) else None


def _branch(alt: dict[str, Any]) -> Branch | None:
    props = alt.get("properties")
    if not isinstance(props, dict):
        return None
    name = _tool_name(props.get("tool"))
    if name is not None:
        key = next((k for k in ARG_KEYS if k in props), None)
        args = props.get(key, {}) if key else {}
        args_schema = args if isinstance(args, dict) else {}
        return Branch(alt, name=name, args_key=key or "arguments", args_schema=args_schema)
    strings = [k for k, v in props.items() if isinstance(v, dict) and v.get("type") == "string"]
    if len(props) == 1 and len(strings) == 1:
        return Branch(alt, answer_key=strings[0])
    return None


def tool_branches(schema: dict[str, Any]) -> list[Branch] | None:
    """The branches of a tool-call schema (tools and/or a direct answer), or None for any other shape."""
    alts = schema.get("oneOf") or schema.get("anyOf")
    if not isinstance(alts, list) or not alts or not all(isinstance(a, dict) for a in alts):
        return None
    branches = [_branch(a) for a in alts]
    return None if any(b is None for b in branches) else [b for b in branches if b is not None]


def restrict_branches(branches: list[Branch], tool_choice: str | None) -> list[Branch]:
    """Apply `ChatRequest.tool_choice`: "none" keeps answers, "required" tools, a name that tool."""
    if tool_choice in (None, "auto"):
        return branches
    if tool_choice == "none":
        kept = [b for b in branches if b.name is None]
    elif tool_choice == "required":
        kept = [b for b in branches if b.name is not None]
    else:
        kept = [b for b in branches if b.name == tool_choice]
    return kept or branches


@dataclass(frozen=True)
class JsonTask:
    """One constrained-JSON request: the conversation (chat dicts, no added instruction), the user's
    latest request (for channel scoring), tool descriptions, and tools already called for it.
    `grammar`: the backend can constrain to a schema, used for values the filler has no rule for."""

    messages: Messages
    schema: dict[str, Any]
    tool_choice: str | None = None
    request_text: str = ""
    descriptions: Mapping[str, str] = field(default_factory=dict)
    already_called: frozenset[str] = frozenset()
    answer_tokens: int = 256
    answer_temperature: float = 0.0
    method: str = "channel"
    grammar: bool = False


def with_system_hint(messages: Messages, hint: str) -> Messages:
    """Append `hint` to the system message (adding one if there is none); skipped when the prompt
    already describes the tool-call JSON (the agent's constrained-JSON protocol does)."""
    if any(m["role"] == "system" and '{"tool"' in m["content"] for m in messages):
        return list(messages)
    if messages and messages[0]["role"] == "system":
        first = {"role": "system", "content": (messages[0]["content"] + "\n\n" + hint).strip()}
        return [first, *messages[1:]]
    return [{"role": "system", "content": hint}, *messages]


def describe(branch: Branch, descriptions: Mapping[str, str]) -> str:
    """What a branch is for, in words: the schema's description, the tool's, or its name and params."""
    if branch.name is None:
        return ANSWER_DESCRIPTION
    text = (
        branch.schema.get("description")
        or descriptions.get(branch.name)
        or branch.args_schema.get("description")
        or ""
    )
    if not text:
        params = ", ".join((branch.args_schema.get("properties") or {}).keys())
        text = f"{branch.name.replace('_', ' ')} ({params})"
    # lower case, no final period: it is spliced into CHANNEL_TEMPLATE mid-sentence
    return " ".join(str(text).split())[:DESCRIPTION_CHARS].rstrip(".").lower()


def channel_prompt(description: str) -> Messages:
    """The prompt under which a branch's likelihood of having produced the user's request is scored."""
    return [
        {"role": "system", "content": CHANNEL_SYSTEM},
        {"role": "user", "content": CHANNEL_TEMPLATE.format(description=description)},
    ]


def _best(scores: Sequence[float]) -> int:
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


def choose_branch(lm: ConstrainLM, task: JsonTask, hinted: Messages, branches: Sequence[Branch]) -> Branch:
    """The most likely branch; ties go to the first.

    "channel" scoring reads only the request, so it cannot see that a tool result already answered it:
    once a tool ran for this request, the called tools are dropped and the remaining choice is scored
    "direct"ly on the whole conversation (results included).
    """
    candidates = restrict_branches(list(branches), task.tool_choice)
    channel = task.method == "channel" and bool(task.request_text.strip())
    if channel and task.already_called:
        candidates = [b for b in candidates if b.name not in task.already_called] or candidates
        channel = False
    if len(candidates) == 1:
        return candidates[0]
    if channel:
        request = task.request_text.strip()[-REQUEST_CHARS:]
        prompts = [channel_prompt(describe(b, task.descriptions)) for b in candidates]
        scores = [lm.score(prompt, "", [request])[0] for prompt in prompts]
    else:
        scores = lm.score(hinted, "", [b.opening for b in candidates])
    return candidates[_best(scores)]


def schema_hint(schema: dict[str, Any], descriptions: Mapping[str, str] | None = None) -> str:
    """A short instruction describing the expected JSON, appended to the system prompt."""
    branches = tool_branches(schema)
    if branches is None:
        return "Reply with only a JSON value matching this JSON schema: " + json.dumps(schema)
    lines = ['Reply with one JSON object. To use a tool: {"tool": NAME, "arguments": {...}}. Tools:']
    for b in branches:
        if b.name is not None:
            params = ", ".join((b.args_schema.get("properties") or {}).keys())
            lines.append(f"- {b.name}({params}): {describe(b, descriptions or {})}")
    answer = next((b.answer_key for b in branches if b.answer_key), None)
    if answer:
        lines.append(f'To reply directly without a tool: {{"{answer}": "..."}}')
    return "\n".join(lines)


def _type_of(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind is None and isinstance(schema.get("properties"), dict):
        return "object"
    return kind if isinstance(kind, str) else None


class _Filler:
    """Writes a JSON value for a schema, forcing the skeleton and letting the model write the leaves."""

    def __init__(self, lm: ConstrainLM, messages: Messages, grammar: bool = False) -> None:
        self.lm, self.messages, self.grammar = lm, messages, grammar

    def value(self, schema: dict[str, Any], prefix: str, depth: int = 0) -> str:
        if "const" in schema:
            return json.dumps(schema["const"])
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self._pick(prefix, [json.dumps(v) for v in schema["enum"]])
        kind = _type_of(schema)
        if kind == "object" and depth < MAX_DEPTH:
            return self._object(schema, prefix, depth)
        if kind == "string":
            return self.string(prefix)
        if kind in ("integer", "number"):
            return self._number(prefix, integer=kind == "integer")
        if kind == "boolean":
            return self._pick(prefix, ["true", "false"])
        if kind == "null":
            return "null"
        if self.grammar:  # arrays, unions, deep objects: the backend's grammar does them properly
            return _grammar(self.lm, self.messages, schema, prefix)
        return self._generic(prefix, "[" if kind == "array" else "{")

    def _pick(self, prefix: str, options: list[str]) -> str:
        return options[_best(self.lm.score(self.messages, prefix, options))]

    def _object(self, schema: dict[str, Any], prefix: str, depth: int) -> str:
        props = schema.get("properties") or {}
        keys = list(props) if "required" not in schema else [k for k in schema["required"] if k in props]
        text = "{"
        for i, key in enumerate(keys):
            text += (", " if i else "") + json.dumps(key) + ": "
            sub = props[key] if isinstance(props[key], dict) else {}
            text += self.value(sub, prefix + text, depth + 1)
        return text + "}"

    def string(self, prefix: str) -> str:
        raw = self.lm.complete_text(self.messages, prefix + '"', max_tokens=STRING_TOKENS, stop=['"', "\n"])
        return json.dumps(raw.replace("\\", "").strip())

    def _number(self, prefix: str, *, integer: bool) -> str:
        raw = self.lm.complete_text(self.messages, prefix, max_tokens=NUMBER_TOKENS, stop=[",", "}", "\n"])
        match = _NUMBER.search(raw)
        number = float(match.group()) if match else 0.0
        return str(int(number)) if integer else json.dumps(number)

    def _generic(self, prefix: str, opener: str) -> str:
        raw = self.lm.complete_text(self.messages, prefix + opener, max_tokens=GENERIC_TOKENS, stop=["\n\n"])
        found = json_in(opener + raw)
        if isinstance(found, dict | list):
            return json.dumps(found, ensure_ascii=False)
        return "[]" if opener == "[" else "{}"


def unwrap_answer(text: str, key: str) -> str:
    """Free text for a direct answer. A prompt that asks for JSON makes the model sometimes write
    `{"answer": "..."}` itself; take the inner text then rather than nesting JSON in the answer."""
    text = text.strip()
    if not text.startswith("{"):
        return text
    data = json_in(text)
    if isinstance(data, dict) and isinstance(data.get(key), str):
        return data[key].strip()
    opened = re.match(r'\{\s*"' + re.escape(key) + r'"\s*:\s*"', text)
    if opened:  # cut off before its closing quote
        return re.sub(r'"\s*\}?\s*$', "", text[opened.end() :]).strip()
    return text


def _answer(lm: ConstrainLM, task: JsonTask, key: str) -> str:
    """A direct answer as free text at the caller's temperature. A tiny model sometimes copies the format
    example from the instructions (`{"answer": "your answer"}`) instead of answering: one sampled retry."""

    def write(heat: float) -> str:
        return unwrap_answer(
            lm.complete_text(task.messages, "", max_tokens=task.answer_tokens, stop=(), temperature=heat), key
        )

    text = write(task.answer_temperature)
    copied = any(m["role"] == "system" and json.dumps(text) in m["content"] for m in task.messages)
    return text if text and not copied else (write(max(0.7, task.answer_temperature)) or text)


def _grammar(lm: ConstrainLM, messages: Messages, schema: dict[str, Any], prefix: str = "") -> str:
    """One grammar-constrained generation, re-serialized: llama.cpp's JSON grammar lets raw control
    characters into strings, which strict parsers (`json.loads`) reject."""
    text = lm.complete_text(messages, prefix, max_tokens=GENERIC_TOKENS, stop=(), schema=schema)
    with suppress(json.JSONDecodeError):
        return json.dumps(json.loads(text, strict=False), ensure_ascii=False)
    return text.strip()


def _fill(lm: ConstrainLM, task: JsonTask, hinted: Messages) -> str:
    branches = tool_branches(task.schema)
    if branches is None:
        return _Filler(lm, hinted, task.grammar).value(task.schema, "")
    branch = choose_branch(lm, task, hinted, branches)
    if branch.name is None:
        return json.dumps({branch.answer_key: _answer(lm, task, branch.answer_key or "")})
    head = branch.opening + ", " + json.dumps(branch.args_key) + ": "
    return head + _Filler(lm, hinted, task.grammar).value(branch.args_schema, head, 1) + "}"


def validation_error(text: str, schema: dict[str, Any]) -> str | None:
    """None if `text` is JSON valid against `schema`, else a one-line reason."""
    import jsonschema

    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not valid JSON: {exc.msg}"
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as exc:
        return f"does not match the schema: {exc.message}"
    except jsonschema.SchemaError as exc:
        raise ProviderError(f"invalid response schema: {exc.message}", provider="local") from exc
    return None


def repair_messages(messages: Messages, bad: str, error: str) -> Messages:
    """The conversation plus a correction turn after an invalid JSON reply."""
    return [
        *messages,
        {"role": "assistant", "content": bad[:500]},
        {"role": "user", "content": f"That reply {error}. Reply again with only the corrected JSON."},
    ]


def constrained_json(lm: ConstrainLM, task: JsonTask) -> str:
    """JSON text valid against `task.schema`, generated by `lm`; retried once, else `ProviderError`."""
    hinted = with_system_hint(task.messages, schema_hint(task.schema, task.descriptions))
    text = _fill(lm, task, hinted)
    error = validation_error(text, task.schema)
    if error is None:
        return text
    retry_task = replace(task, messages=repair_messages(task.messages, text, error))
    retry = _fill(lm, retry_task, repair_messages(hinted, text, error))
    if validation_error(retry, task.schema) is None:
        return retry
    raise ProviderError(
        f"the local model did not produce JSON matching the schema ({error}); "
        "a larger model or an API provider is more reliable here.",
        provider="local",
    )
