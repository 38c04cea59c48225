"""Pure text formatting of run events for every front end (CLI and GUI).

Nothing here does I/O or imports a UI toolkit: each function maps values from `core.types` / `core.events`
to short human-readable strings, so the CLI and the Gradio page describe a turn the same way.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

from core.text import clip
from core.types import ToolCall, Usage
from ui.shared import safe_markdown

_EXIT_NOTICES: Mapping[str, str] = {
    "cancelled": "Stopped.",
    "max_rounds": "Stopped after too many tool rounds; the answer may be incomplete.",
    "budget": "Stopped: the spending budget was reached.",
}


def _short_value(value: Any, limit: int = 40) -> str:
    if isinstance(value, str):
        return repr(clip(value, limit, one_line=True))
    try:
        rendered = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        rendered = repr(value)
    return clip(rendered, limit, one_line=True)


def format_tool_call(call: ToolCall, limit: int = 100) -> str:
    """One compact line for a tool call: `search(query='cats', k=5)`."""
    args = ", ".join(f"{key}={_short_value(value)}" for key, value in call.arguments.items())
    return clip(f"{call.name}({args})", limit, one_line=True)


def format_tool_result(ok: bool, output: str, elapsed_ms: float = 0.0, limit: int = 120) -> str:
    """One compact line for a finished tool call: `ok · 12 ms · first words of the output`."""
    head = "ok" if ok else "failed"
    if elapsed_ms:
        head += f" · {elapsed_ms:.0f} ms"
    preview = clip(output, limit, one_line=True)
    return f"{head} · {preview}" if preview else head


def format_usage(usage: Usage, *, model: str = "", elapsed_s: float | None = None) -> str:
    """Usage on one line: `model · 120 in / 45 out tokens · $0.0012 · 1.4 s` (empty parts left out)."""
    parts = [model] if model else []
    if usage.total_tokens:
        parts.append(f"{usage.input_tokens} in / {usage.output_tokens} out tokens")
    if usage.cost_usd:
        parts.append(f"${usage.cost_usd:.4f}")
    if elapsed_s is not None:
        parts.append(f"{elapsed_s:.1f} s")
    return " · ".join(parts)


def exit_notice(exit_reason: str) -> str:
    """What to tell the user when a run ended for a reason other than a normal answer ("" for "answer")."""
    if exit_reason == "answer":
        return ""
    return _EXIT_NOTICES.get(exit_reason, f"Stopped ({exit_reason}).")


def _citation_label(citation: Mapping[str, Any]) -> str:
    for key in ("title", "source", "path", "collection", "id"):
        value = citation.get(key)
        if value:
            return clip(str(value), 80, one_line=True)
    return "source"


def render_citations(citations: Sequence[Mapping[str, Any]]) -> str:
    """Source lines, or "" when there are none: a memory the answer cited by its marker shows under that
    marker with the cited text (`[M2] Jo lives in Denver.`); other sources are numbered with their link."""
    lines = []
    for number, citation in enumerate(citations, start=1):
        marker = citation.get("marker")
        if marker:
            shown = citation.get("label") or citation.get("text", "")
            lines.append(f"[{marker}] {clip(str(shown), 220, one_line=True)}")
            continue
        label = _citation_label(citation)
        url = citation.get("url")
        lines.append(f"[{number}] {label} — {url}" if url else f"[{number}] {label}")
    return "\n".join(lines)


def markdown_text(text: str) -> str:
    """Text for a Markdown line: Markdown's markup characters backslashed and HTML's as entities, so the
    user's words render as written and neither link, format nor open a tag."""
    return html.escape("".join("\\" + ch if ch in "\\`*_{}[]()#+-.!|~$" else ch for ch in text))


def neutralize_remote_media(markdown: str) -> str:
    """Make model or tool text safe to render as Markdown: no image or HTML may fetch anything.

    Raw HTML tags are shown as text and images (inline or reference-style, whatever the URL) become plain
    links, so displaying an answer can never make the browser contact a server the text names
    (prompt-injection exfiltration). Code spans and code blocks, as markdown-it-py parses them, are left
    alone because Markdown already shows them literally; see `ui.shared.safe_markdown`.
    """
    return safe_markdown.neutralize(markdown)
