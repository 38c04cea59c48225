"""Text cut to fit a prompt, a log line or a screen: the one clipping rule every layer uses."""

from __future__ import annotations


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
