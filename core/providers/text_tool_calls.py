"""Tool calls a model wrote as text although the server offered it native tools.

Small models served by Ollama, LM Studio or llama.cpp sometimes answer a request with `tools` by writing
the call out instead of producing a structured `tool_calls` entry: the Hermes/Qwen form
`<tool_call>{"name": ..., "arguments": ...}</tool_call>` (the server's parser missed it), our own
`<tool_call name="...">{...}</tool_call>`, or a bare JSON object `{"name": ..., "arguments"|"parameters":
...}` (Llama 3.x), possibly in a ```json fence. `core/agent/xml_protocol.py` reads the marker forms for
models offered tools in the prompt; providers may not import the agent layer, and here the calls must
become real `tool_calls` (so the history sent back is in the server's native shape), hence this reader.

A bare JSON object is taken as a call only when it is the whole reply and names an offered tool, so an
answer that merely contains JSON stays an answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

_MARKER = "<tool_call"
_CALL_RE = re.compile(
    r"<tool_call(?:\s+name\s*=\s*[\"']?(?P<name>[\w.\-]+)[\"']?)?\s*>(?P<body>.*?)(?:</tool_call\s*>|(?=<tool_call\b)|\Z)",
    re.DOTALL | re.IGNORECASE,
)
# Small models often invent the result right after their call; it is never shown or kept.
_FAKE_RESULT_RE = re.compile(r"<tool_result\b.*?(?:</tool_result\s*>|\Z)", re.DOTALL | re.IGNORECASE)
_FENCE_RE = re.compile(r"^```[\w-]*\s*|\s*```$")
_NAME_RE = re.compile(r'"name"\s*:\s*"(?P<name>[^"]+)"')
_ARGUMENT_KEYS = ("arguments", "parameters")


TextCall = tuple[str, object]
"""(tool name, arguments as written: an object, a JSON string, raw unreadable text, or None)."""


def read_text_calls(text: str, names: Collection[str]) -> tuple[str, list[TextCall]]:
    """(visible text, calls) from a reply that may hold calls written as text.

    Marker blocks are calls whatever tool they name (a wrong name gets the loop's "unknown tool" answer);
    a bare JSON reply is a call only for an offered tool. Without calls the text comes back unchanged.
    """
    if _MARKER in text.lower():
        calls = [_marker_call(m.group("name") or "", m.group("body")) for m in _CALL_RE.finditer(text)]
        if calls:
            visible = _FAKE_RESULT_RE.sub("", _CALL_RE.sub("", text))
            return re.sub(r"\n{3,}", "\n\n", visible).strip(), calls
    calls = _bare_json_calls(text, names)
    return ("", calls) if calls else (text, [])


def _marker_call(name: str, body: str) -> TextCall:
    """(name, arguments) of one marker block; unreadable JSON is passed on raw so the model hears of it."""
    text = _FENCE_RE.sub("", body.strip())
    if not text:
        return name, None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        found = _NAME_RE.search(text)
        return name or (found.group("name") if found else ""), text
    if not name and isinstance(data, dict) and isinstance(data.get("name"), str):
        return data["name"], _arguments_of(data)
    return name, data


def _arguments_of(data: dict[str, Any]) -> object:
    return next((data[key] for key in _ARGUMENT_KEYS if key in data), None)


def _bare_json_calls(text: str, names: Collection[str]) -> list[TextCall]:
    """Calls when the whole reply is one call object (or a list of them) naming offered tools."""
    try:
        data = json.loads(_FENCE_RE.sub("", text.strip()))
    except json.JSONDecodeError:
        return []
    items = data if isinstance(data, list) else [data]
    allowed = {"name", "type", *_ARGUMENT_KEYS}
    calls = [
        (item["name"], _arguments_of(item))
        for item in items
        if isinstance(item, dict)
        and isinstance(item.get("name"), str)
        and item["name"] in names
        and set(item) <= allowed
    ]
    return calls if calls and len(calls) == len(items) else []


class CallTextHold:
    """Passes streamed text through, holding back what may be a call written as text until the end.

    Held: everything from a `<tool_call` marker on, and a reply that opens with `{` or a fence followed by
    `{` (a bare JSON call). A partial marker at the end of a piece waits for the next piece.
    """

    def __init__(self) -> None:
        self._pending = ""
        self._held = ""
        self._opened = False  # the reply's opening was seen and is not a bare JSON object

    def feed(self, text: str) -> str:
        """The part of `text` that can be shown now."""
        if self._held:
            self._held += text
            return ""
        self._pending += text
        if not self._opened:
            verdict = _opening(self._pending)
            if verdict is None:
                return ""
            if verdict == "json":
                self._held, self._pending = self._pending, ""
                return ""
            self._opened = True
        return self._release()

    def _release(self) -> str:
        at = self._pending.lower().find(_MARKER)
        if at >= 0:
            shown, self._held, self._pending = self._pending[:at], self._pending[at:], ""
            return shown
        keep = _partial_marker(self._pending.lower())
        cut = len(self._pending) - keep
        shown, self._pending = self._pending[:cut], self._pending[cut:]
        return shown

    def finish(self) -> str:
        """Whatever was held back (the text to read calls from, or to show as it is)."""
        rest, self._pending, self._held = self._pending + self._held, "", ""
        return rest


def _opening(text: str) -> str | None:
    """ "json" when the reply opens like a bare JSON call, "text" when it cannot, None while undecided."""
    start = text.lstrip().lower()
    if not start or "```json".startswith(start):
        return None
    if start.startswith("{"):
        return "json"
    if not start.startswith("```"):
        return "text"
    fence = re.match(r"```[\w-]*[ \t]*\n?\s*", start)
    rest = start[fence.end() :] if fence else ""
    if not rest:
        return None
    return "json" if rest.startswith("{") else "text"


def _partial_marker(text: str) -> int:
    """Length of the longest end of `text` that could begin `<tool_call`."""
    for size in range(min(len(text), len(_MARKER) - 1), 0, -1):
        if _MARKER.startswith(text[-size:]):
            return size
    return 0
