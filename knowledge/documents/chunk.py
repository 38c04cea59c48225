"""Structure-aware chunking: exact, consecutive slices of a document's text, none too long for the embedder.

The text is first cut into blocks along its structure: markdown (and the `#` lines html and docx
extraction write) by headers, fenced code blocks and paragraphs; source code by top-level blocks (a
definition starts after a blank line at column 0); plain text by paragraphs; a PDF page by page, then by
paragraph. Blocks are then packed into chunks up to `target_chars` and `max_tokens` word pieces; a header
or a new PDF page always starts a chunk, a code block that fits the token cap is never split, and a block
over the cap is cut at paragraph, line, sentence, word and, last, character boundaries. Every chunk
carries its section: the markdown header path ("Setup > Linux"), the definition's first line, or "page N".

Chunks cover the text with no gap and no overlap (joined, they are the text), which the `reference_docs`
contract requires. `token_count` is the embedding model's own tokenizer (MiniLM reads 256 word pieces,
[CLS] and [SEP] included, and silently drops the rest), so no chunk is cut short when it is embedded.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

TokenCount = Callable[[str], int]
SpanCount = Callable[[int, int], int]  # word pieces of text[start:end] of the text being chunked
_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r" {0,3}(```+|~~~+)")
_SPLITTERS = (
    re.compile(r"\n[ \t]*\n"),  # paragraphs
    re.compile(r"\n"),  # lines
    re.compile(r"(?<=[.!?;:])[ \t]+"),  # sentences
    re.compile(r"[ \t]+"),  # words
)


@dataclass(frozen=True)
class Chunk:
    """`text[start:end]` of the document, with the section it starts in."""

    start: int
    end: int
    section: str = ""


@dataclass(frozen=True)
class _Block:
    start: int
    end: int
    section: str
    hard: bool = False  # starts a new chunk (a header, a new page)
    heading: bool = False  # a header line alone: the block after it joins its chunk


def estimate_tokens(text: str) -> int:
    """A tokenizer-free upper estimate of MiniLM word pieces (tests, benchmarks' baseline): a word piece
    is rarely shorter than 2.5 characters, and every punctuation mark is one."""
    return len(re.findall(r"[^\w\s]", text)) + int(len(re.sub(r"[^\w]", "", text)) / 2.5) + 1


def chunk_text(
    text: str,
    file_type: str,
    token_count: TokenCount,
    *,
    max_tokens: int,
    target_chars: int,
    pages: Sequence[int] = (),
) -> list[Chunk]:
    """Cut `text` into chunks (see the module docstring); [] for an empty text.

    When `token_count` also has `starts(text)` (the start offset of every word piece), the text is
    tokenized once and a span's count is read from those offsets; every chunk is still counted by
    `token_count` itself at the end."""
    if not text:
        return []
    count = _span_counter(text, token_count)
    packed = _pack(text, _blocks(text, file_type, pages), count, max_tokens, target_chars)
    return _verified(text, packed, token_count, max_tokens)


def _span_counter(text: str, token_count: TokenCount) -> SpanCount:
    """Word pieces of `text[start:end]`: from the offsets of the whole text's word pieces when the counter
    gives them (exact for spans cut at whitespace, where BERT's pre-tokenizer cuts too; the final check
    covers the rest), else by counting the slice."""
    starts_of = getattr(token_count, "starts", None)
    if starts_of is None:
        return lambda start, end: token_count(text[start:end])
    starts = list(starts_of(text))
    return lambda start, end: bisect.bisect_left(starts, end) - bisect.bisect_left(starts, start)


def _blocks(text: str, file_type: str, pages: Sequence[int]) -> list[_Block]:
    if file_type == "pdf" and pages:
        bounds = [*pages, len(text)]
        out: list[_Block] = []
        for number, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False), 1):
            if end > start:
                found = _paragraph_blocks(text, start, end, f"page {number}")
                out.extend([_Block(found[0].start, found[0].end, found[0].section, True), *found[1:]])
        return out
    if file_type == "code":
        return _code_blocks(text)
    if file_type in ("md", "html", "docx"):
        return _markdown_blocks(text)
    return _paragraph_blocks(text, 0, len(text), "")


def _line_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans, at = [], start
    while at < end:
        stop = text.find("\n", at, end)
        stop = end if stop < 0 else stop + 1
        spans.append((at, stop))
        at = stop
    return spans


def _paragraph_blocks(text: str, start: int, end: int, section: str) -> list[_Block]:
    """Paragraphs: a non-blank line after a blank one starts a block; blank lines end the one before."""
    blocks: list[_Block] = []
    begin, blank_before = start, False
    for line_start, line_end in _line_spans(text, start, end):
        blank = not text[line_start:line_end].strip()
        if not blank and blank_before and line_start > begin:
            blocks.append(_Block(begin, line_start, section))
            begin = line_start
        blank_before = blank
    blocks.append(_Block(begin, end, section))
    return blocks


def _code_blocks(text: str) -> list[_Block]:
    """Top-level blocks of source code: a column-0 line after a blank line starts one (functions, classes,
    with their comments and decorators), so a definition is not cut when it fits the token cap."""
    blocks: list[_Block] = []
    begin, blank_before = 0, False
    for line_start, line_end in _line_spans(text, 0, len(text)):
        line = text[line_start:line_end]
        blank = not line.strip()
        if not blank and blank_before and not line[:1].isspace() and line_start > begin:
            blocks.append(_Block(begin, line_start, _code_section(text[begin:line_start])))
            begin = line_start
        blank_before = blank
    blocks.append(_Block(begin, len(text), _code_section(text[begin:])))
    return blocks


def _code_section(block: str) -> str:
    for line in block.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "//", "@", "/*", "*")):
            return stripped[:80]
    return ""


def _markdown_blocks(text: str) -> list[_Block]:
    """Headers (each starts a chunk and extends the header path), fenced code blocks and paragraphs."""
    reader = _MarkdownReader(text)
    for line_start, line_end in _line_spans(text, 0, len(text)):
        reader.line(line_start, line_end)
    return reader.finish()


class _MarkdownReader:
    """Line by line: which block each line belongs to, and the header path."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.blocks: list[_Block] = []
        self.path: list[tuple[int, str]] = []
        self.begin = 0
        self.hard = False
        self.fence = ""
        self.blank_before = False

    def _cut(self, at: int, hard: bool = False) -> None:
        if at > self.begin:
            heading = bool(_HEADING.fullmatch(self.text[self.begin : at].strip("\n")))
            self.blocks.append(_Block(self.begin, at, self._section(), self.hard, heading))
            self.begin = at
            self.hard = hard
        else:
            self.hard = self.hard or hard

    def _section(self) -> str:
        return " > ".join(title for _, title in self.path)

    def line(self, start: int, end: int) -> None:
        line = self.text[start:end].rstrip("\n")
        if self.fence:
            if line.strip().startswith(self.fence):
                self.fence = ""
                self.blank_before = True  # whatever follows a closed fence is a new block
            return
        fence = _FENCE.match(line)
        if fence:
            self._cut(start)
            self.fence = fence.group(1)[:3]
            return
        heading = _HEADING.fullmatch(line)
        if heading:
            self._cut(start, hard=True)
            level = len(heading.group(1))
            self.path = [*(p for p in self.path if p[0] < level), (level, heading.group(2).strip())]
            self.blank_before = True  # the paragraph after a header is its own block
            return
        blank = not line.strip()
        if not blank and self.blank_before:
            self._cut(start)
        self.blank_before = blank

    def finish(self) -> list[_Block]:
        self.blocks.append(_Block(self.begin, len(self.text), self._section(), self.hard))
        return self.blocks


def _pack(
    text: str, blocks: Sequence[_Block], count: SpanCount, max_tokens: int, target_chars: int
) -> list[Chunk]:
    """Consecutive blocks merged up to the targets; a hard block starts a chunk; long blocks are cut."""
    chunks: list[Chunk] = []
    start, tokens, section, lonely = -1, 0, "", False
    for block in blocks:
        for piece_start, piece_end, piece_tokens in _pieces(text, block.start, block.end, count, max_tokens):
            fits = (
                start >= 0
                and not (block.hard and piece_start == block.start)
                and tokens + piece_tokens <= max_tokens
                # a header alone (or a scrap) takes the block after it even past the target
                and (piece_end - start <= target_chars or lonely or piece_start - start < target_chars // 4)
            )
            if fits:
                tokens, lonely = tokens + piece_tokens, False
                continue
            if start >= 0:
                chunks.append(Chunk(start, piece_start, section))
            start, tokens, section, lonely = piece_start, piece_tokens, block.section, block.heading
    if start >= 0:
        chunks.append(Chunk(start, len(text), section))
    return chunks


def _pieces(
    text: str, start: int, end: int, count: SpanCount, max_tokens: int, level: int = 0
) -> list[tuple[int, int, int]]:
    """`text[start:end]` as spans of at most `max_tokens` each, cut at the coarsest boundary that works."""
    tokens = count(start, end)
    if tokens <= max_tokens:
        return [(start, end, tokens)]
    if level >= len(_SPLITTERS):
        return _hard_cut(text, start, end, count, max_tokens)
    cuts = [m.end() + start for m in _SPLITTERS[level].finditer(text[start:end]) if 0 < m.end() < end - start]
    if not cuts:
        return _pieces(text, start, end, count, max_tokens, level + 1)
    out: list[tuple[int, int, int]] = []
    for unit_start, unit_end in zip([start, *cuts], [*cuts, end], strict=True):
        for piece in _pieces(text, unit_start, unit_end, count, max_tokens, level + 1):
            if out and out[-1][2] + piece[2] <= max_tokens:
                merged_tokens = count(out[-1][0], piece[1])
                if merged_tokens <= max_tokens:
                    out[-1] = (out[-1][0], piece[1], merged_tokens)
                    continue
            out.append(piece)
    return out


def _hard_cut(
    text: str, start: int, end: int, count: SpanCount, max_tokens: int
) -> list[tuple[int, int, int]]:
    """A run with no space in it (a long URL, base64): characters, as many as fit, then the rest."""
    out = []
    while start < end:
        size = min(end - start, max(1, max_tokens * 2))
        while size > 1 and count(start, start + size) > max_tokens:
            size = max(1, size * 3 // 4)
        out.append((start, start + size, count(start, start + size)))
        start += size
    return out


def _verified(text: str, chunks: list[Chunk], token_count: TokenCount, max_tokens: int) -> list[Chunk]:
    """Every chunk counted by the tokenizer itself (merged pieces were counted as sums, spans from the
    whole text's offsets); one it finds too long is cut again, counting each slice exactly."""
    exact: SpanCount = lambda start, end: token_count(text[start:end])  # noqa: E731
    out: list[Chunk] = []
    for chunk in chunks:
        if exact(chunk.start, chunk.end) <= max_tokens:
            out.append(chunk)
            continue
        for start, end, _ in _pieces(text, chunk.start, chunk.end, exact, max_tokens):
            out.append(Chunk(start, end, chunk.section))
    return out
