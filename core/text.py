"""Text on its way into a prompt or onto a screen: clipped to a length, and untrusted text fenced.

Untrusted text (tool output, web pages, the candidates a judge compares, the user's own words in a side
call) is data, never instructions: `fence` wraps it in a tag after removing the usual injection carriers and
defanging every tag of our own protocols, so the text cannot close its fence early or pose as our markup.
"""

from __future__ import annotations

import re

_ZERO_WIDTH_RE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)
# The tags our prompts fence data in (the agent's tool protocol, the judging and planning prompts).
_OWN_TAGS = ("tool_call", "tool_result", "tool_output", "candidate", "question", "answer", "plan", "problems")
_OWN_TAG_RE = re.compile(r"<(/?\s*)(" + "|".join(_OWN_TAGS) + r")\b", re.IGNORECASE)


def clip(text: str, limit: int, *, one_line: bool = False, keep_tail: bool = False) -> str:
    """`text` cut to at most `limit` characters, with a mark where it was cut.

    `one_line` folds every run of white space into one space first (a prompt line, a UI row), so the limit
    counts what is shown. `keep_tail` keeps the head and the tail with the number of characters cut between
    them (tool output and tracebacks often say what matters at the end); otherwise the head is kept and "…"
    ends it.
    """
    if one_line:
        text = " ".join(text.split())
    if len(text) <= limit:
        return text
    if keep_tail:
        marker = f"\n[... {len(text) - limit} characters truncated ...]\n"
        keep = max(limit - len(marker), 0)
        head = keep * 2 // 3
        return text[:head] + marker + text[len(text) - (keep - head) :]
    return text[: max(limit - 1, 0)] + "…"


def sanitize_untrusted(text: str) -> str:
    """Drop invisible characters and HTML comments (common injection carriers) and defang our tags."""
    text = _ZERO_WIDTH_RE.sub("", text)
    text = _HTML_COMMENT_RE.sub("", text)
    return _OWN_TAG_RE.sub(r"&lt;\1\2", text)


def fence(tag: str, text: str, *, limit: int | None = None, **attrs: str) -> str:
    """Untrusted `text` inside `<tag attr="...">…</tag>`, sanitised, and clipped to `limit` characters.

    `tag` must be one of our own tags, since those are the ones defanged inside the text.
    """
    if tag not in _OWN_TAGS:
        raise ValueError(f"fence tag {tag!r} is not defanged inside fenced text; add it to _OWN_TAGS")
    body = sanitize_untrusted(text)
    if limit is not None:
        body = clip(body, limit)
    rendered = "".join(f' {key}="{_attr(value)}"' for key, value in attrs.items())
    return f"<{tag}{rendered}>\n{body}\n</{tag}>"


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """A count with its noun in the right number: (1, "session") -> "1 session"; (2, "turn") -> "2 turns"."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"
