"""What no reply may show the user: the prompt's own markup.

A small model that cannot use its context often continues it instead ("he's currently named teodora elena.
### trusted faces [f1] …"). Whatever model answers, the user never sees:

- a **section heading** copied from the prompt or written in its style: a heading whose title is or begins
  with one of the prompt's section headers (its words run together or not: "### TIMECONTEXT …") or, like
  them, is two or more words in capitals ("### LAST REQUEST"), or any `##`-style heading that starts in the
  middle of a line (never how a real answer writes one). The reply is cut there: what follows is the
  prompt's text, not an answer.
- the **query marker** ("The user says:") that starts the user's words in the prompt: cut there too.
- **tool-call text**: a call written out instead of made (`<tool_call …>`, `{"tool": "current_time",
  "arguments": …}`), a tool result block, or the agent loop's own instruction to the model ("The tool-use
  limit for this turn is reached…"): cut there.
- an **item marker** (`[M2]`, `[f1]`) that names no item of this prompt: removed. Markers that do name an
  item are the reply's citations: at the output boundary (`without_markup`) they become numbered sources,
  "[1]", "[2]" in the order the reply first cites them, each with its item in `Done.citations`.

Code (fenced blocks and inline backticks) is left alone. `MarkupFilter` applies the same rules to a stream
of text deltas: it holds back only what could still turn into markup (a heading until its line ends, an open
`[` or backtick, a prefix of the query marker), so what it has let through is always the start of the
cleaned reply; the final answer also drops the whitespace a cut or a removed marker left.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncGenerator, Collection, Iterable, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field, replace

from core.events import Done, RunEvent, TextDelta
from core.prompt.assembly import PromptItem
from core.prompt.sections import QUERY_MARKER, SECTIONS

_HEADING = re.compile(r"(?P<hashes>#{2,6})[ \t]+(?P<title>[^\n]*)")
ITEM_MARKER = re.compile(r"(?P<space>[ \t]*)\[(?P<name>[A-Za-z]{1,2}\d{1,3})\]")
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.S)
_OPEN_ITEM = re.compile(r"\[[A-Za-z]{0,2}\d{0,3}\Z")
_LINE_HEADING = re.compile(r"[ \t]*#{2,6}(?:[ \t]|\Z)")
_TRAILING_HASHES = re.compile(r"#+\Z")
_HEADER_WORDS = re.compile(r"[a-z0-9]+")
_TOOL_TEXT = re.compile(
    r"</?tool_(?:call|result)\b|\[The tool[_ -]|The tool-use limit for this turn"
    r"|\{\s*\"(?:tool|name|function|tool_name)\"\s*:\s*\"[\w.-]+\"\s*,\s*\"(?:arguments|parameters|args|input)\"\s*:",
    re.I,
)
# What may still become tool-call text at the end of a stream: a prefix of a tag or of the loop's words, or
# a JSON object's opening key and value ('{"tool": "current_ti').
_TOOL_STARTS = ("<tool_call", "<tool_result", "</tool_", "[The tool", "The tool-use limit")
_OPEN_TOOL_JSON = re.compile(
    r'\{\s*(?:"\w*(?:"\s*(?::\s*(?:"[\w.-]*(?:"\s*,?\s*(?:"\w*"?\s*:?\s*)?)?)?)?)?)?\Z'
)
logger = logging.getLogger(__name__)
NOTHING_LEFT = "I couldn't put together an answer to that from what I know."


def _title_key(title: str) -> str:
    return " ".join(_HEADER_WORDS.findall(title.lower()))


SECTION_TITLES = frozenset(_title_key(spec.header) for spec in SECTIONS.values())


@dataclass(frozen=True)
class Cleaned:
    """A reply with the prompt's markup taken out, and what was taken out (for logs and checks)."""

    text: str
    cut_at: int | None = None  # where a copied heading or the query marker started (None: no cut)
    removed_markers: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()  # the markers naming an item, in the order first cited ("[1]": the first)

    @property
    def changed(self) -> bool:
        return self.cut_at is not None or bool(self.removed_markers)


def _code_spans(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in _CODE.finditer(text)]


def _inside(position: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


def markup_cut(text: str, titles: Collection[str] = SECTION_TITLES) -> int | None:
    """Where the first copied heading or query marker starts in `text` (outside code), else None."""
    code = _code_spans(text)
    cuts = []
    for match in _HEADING.finditer(text):
        start = match.start()
        if _inside(start, code):
            continue
        line_start = text.rfind("\n", 0, start) + 1
        mid_line = bool(text[line_start:start].strip())
        title = match.group("title")
        if mid_line or _copied_title(title, titles) or _in_prompt_style(title):
            cuts.append(start)
            break
    marker = text.find(QUERY_MARKER.strip())
    if marker >= 0 and not _inside(marker, code):
        cuts.append(marker)
    tool = next((m.start() for m in _TOOL_TEXT.finditer(text) if not _inside(m.start(), code)), None)
    if tool is not None:
        cuts.append(tool)
    return min(cuts, default=None)


def _copied_title(title: str, titles: Collection[str]) -> bool:
    """A heading that is, or begins with, a section header of the prompt, its words run together or not
    ("### USER PROFILE", "### TIMECONTEXT Max's family: …")."""
    words = _title_key(title).split()
    if " ".join(words) in titles:
        return True
    # run together or followed by more: only in the prompt's capitals ("## Documentation links" is an
    # answer's own heading)
    squashed = {t.replace(" ", "") for t in titles}
    capitals = title.split()[:1] and title.split()[0].isupper()
    return bool(capitals) and any("".join(words[:n]) in squashed for n in range(1, len(words) + 1))


def _in_prompt_style(title: str) -> bool:
    """A heading written as the prompt writes its sections: two or more words, all in capitals
    ("### LAST REQUEST"); an answer's own headings are not ("## Steps", "## API")."""
    words = _HEADER_WORDS.findall(title.lower())
    return len(words) >= 2 and not any(char.islower() for char in title)


def clean_reply(
    text: str,
    markers: Collection[str],
    titles: Collection[str] = SECTION_TITLES,
    *,
    streamed: bool = False,
    numbered: bool = False,
) -> Cleaned:
    """`text` without copied headings (cut there), the query marker (cut there) and item markers that name
    no item of the prompt (`markers`: the names that do, "M2", "F1"). The whitespace a cut or a removed
    marker leaves goes too, unless `streamed` (it may have been shown already: `MarkupFilter`). `numbered`:
    the markers that stay are written as numbered sources ("[M2]" first cited -> "[1]")."""
    cut = markup_cut(text, titles)
    kept = text if cut is None else text[:cut]
    kept = kept if streamed else kept.rstrip()
    code = _code_spans(kept)
    removed: list[str] = []
    order: dict[str, int] = {}

    def drop(match: re.Match[str]) -> str:
        name = match.group("name")
        if _inside(match.start("name"), code):
            return match.group(0)
        if name in markers:
            number = order.setdefault(name, len(order) + 1)
            return f"{match.group('space')}[{number}]" if numbered else match.group(0)
        removed.append(name)
        return match.group("space") if streamed else ""

    kept = ITEM_MARKER.sub(drop, kept)
    return Cleaned(kept, cut, tuple(removed), tuple(order))


def _open_backtick(text: str, position: int) -> int | None:
    """Where an inline-code backtick opened before `position` on its line is still unclosed (outside a
    fenced block), else None."""
    if _inside(position, _code_spans(text)):
        return None
    line_start = text.rfind("\n", 0, position) + 1
    segment = text[line_start:position]
    if segment.count("`") % 2 == 0:
        return None
    return line_start + segment.rfind("`")


@dataclass
class MarkupFilter:
    """`clean_reply` over a stream: `feed` returns the text that is safe to show now, `close` the rest."""

    markers: Collection[str]
    titles: Collection[str] = SECTION_TITLES
    numbered: bool = False
    _text: str = ""
    _shown: int = 0
    _cut: bool = field(default=False)

    def feed(self, delta: str) -> str:
        """Take one delta; return what can be shown of the cleaned reply beyond what was shown."""
        if self._cut:
            return ""
        self._text += delta
        cleaned = clean_reply(self._text, self.markers, self.titles, streamed=True, numbered=self.numbered)
        # a cut is final once its line has ended: "## M2#M" reads as a heading, "## M2#M2word" does not
        cut = cleaned.cut_at
        if cut is not None and "\n" in self._text[cut:] and _open_backtick(self._text, cut) is None:
            self._cut = True
            return self._advance(cleaned.text)
        return self._advance(cleaned.text[: self._settled(cleaned.text)])

    def close(self) -> str:
        """The rest of the cleaned reply, once the stream has ended."""
        cleaned = clean_reply(self._text, self.markers, self.titles, streamed=True, numbered=self.numbered)
        return self._advance(cleaned.text)

    def _advance(self, text: str) -> str:
        new = text[self._shown :]
        self._shown = max(self._shown, len(text))
        return new

    def _settled(self, text: str) -> int:
        """How much of `text` cannot change any more: up to whatever at its end could still be markup."""
        end = len(text)
        line_start = text.rfind("\n", 0, end) + 1
        if _LINE_HEADING.match(text, line_start, end) and not _inside(line_start, _code_spans(text)):
            end = line_start  # a heading on the unfinished line: its title decides, at the newline
        elif trailing := _TRAILING_HASHES.search(text, 0, end):
            end = trailing.start()  # may become a heading
        if (backtick := _open_backtick(text, end)) is not None:
            end = backtick  # inline code may be opening: what follows it is code or not, once it closes
        if opened := _OPEN_ITEM.search(text, 0, end):
            end = opened.start()
        end = _before_open_tool_text(text, end)
        for size in range(min(len(QUERY_MARKER), end), 0, -1):
            if QUERY_MARKER.startswith(text[end - size : end]):
                end -= size
                break
        return end


def _before_open_tool_text(text: str, end: int) -> int:
    """`end`, or where tool-call text may be starting before it (held back until it is known)."""
    for start in _TOOL_STARTS:
        for size in range(min(len(start), end), 0, -1):
            if start.startswith(text[end - size : end]) and (size > 1 or start[0] in "<["):
                if not _inside(end - size, _code_spans(text)):
                    return end - size
                break
    if (opened := _OPEN_TOOL_JSON.search(text, 0, end)) and not _inside(opened.start(), _code_spans(text)):
        return opened.start()
    return end


async def without_markup(
    events: AsyncGenerator[RunEvent, None], items: Mapping[str, PromptItem]
) -> AsyncGenerator[RunEvent, None]:
    """`events` with the prompt's markup taken out of their text: deltas through a `MarkupFilter`, the
    final answer through `clean_reply`, the prompt items it cites (`items`: marker -> item) numbered in
    its text and listed first in its citations. A reply that was nothing but markup says so plainly."""
    markup = MarkupFilter(frozenset(items), numbered=True)
    async with aclosing(events) as stream:
        async for event in stream:
            if isinstance(event, TextDelta):
                if text := markup.feed(event.text):
                    yield TextDelta(text)
                continue
            if isinstance(event, Done):
                if rest := markup.close():
                    yield TextDelta(rest)
                event = _done_without_markup(event, items)
            yield event


def _done_without_markup(done: Done, items: Mapping[str, PromptItem]) -> Done:
    cleaned = clean_reply(done.answer, frozenset(items), numbered=True)
    if cleaned.changed:  # what was cut is not logged: it may quote the user's memories
        logger.info(
            "reply cleaned: cut at %s, %d stray markers", cleaned.cut_at, len(cleaned.removed_markers)
        )
    answer = NOTHING_LEFT if done.answer.strip() and not cleaned.text.strip() else cleaned.text
    sources = tuple(
        {
            "marker": str(number),
            "source": name,
            "id": items[name].id,
            "text": items[name].text[:300],
            "label": items[name].label or items[name].text[:300],
        }
        for number, name in enumerate(cleaned.cited, start=1)
    )
    return replace(done, answer=answer, citations=(*sources, *done.citations))
