"""Reading one Obsidian note: front matter, sections by header, wikilinks and tags outside code.

- Front matter: a leading `---` YAML block; its `tags`/`tag` and `aliases` are read, the block is not stored.
- Sections: ATX headers (`#` to `######` then a space) outside fenced code split the note; each section
  keeps its header path (`Plan › Week 1`). A section longer than `max_chars` is cut at blank lines, then at
  spaces, so every chunk fits the embedding model.
- Wikilinks: `[[Note]]`, `[[Note|alias]]`, `[[Note#heading]]`, `[[Note^block]]`, `[[folder/Note]]` and
  embeds `![[Note]]` name the note; embeds of attachments (`![[photo.png]]`) and links to a heading of the
  same note (`[[#heading]]`) name none.
- Tags: `#tag`, `#nested/tag` (case-insensitive, at least one non-digit: `#123` is not a tag) after the
  start of a line, a space or an opening bracket; never inside fenced or inline code, comments (`%%…%%`,
  `<!--…-->`), links or URLs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADER = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*(?:#+[ \t]*)?$")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_COMMENTS = re.compile(r"%%.*?%%|<!--.*?-->", re.DOTALL)
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")
_MD_LINK = re.compile(r"\]\([^)\s]*\)|<?https?://\S+")
_TAG = re.compile(r"(?:^|(?<=[\s(\[{,;]))#(\w[\w/-]*)", re.MULTILINE)
_NOTE_SUFFIX = ".md"
SECTION_SEPARATOR = " › "


@dataclass(frozen=True)
class Section:
    """One chunk of a note: its header path ("" before the first header) and its text."""

    heading: str
    text: str


@dataclass(frozen=True)
class ParsedNote:
    """What a note says: its sections, the notes it links to (as written, without alias or heading), its
    tags (lower case, without `#`) and its aliases."""

    sections: tuple[Section, ...]
    links: tuple[str, ...]
    tags: tuple[str, ...]
    aliases: tuple[str, ...]


def parse_note(text: str, max_chars: int = 900) -> ParsedNote:
    """Read one note's text (UTF-8 already decoded)."""
    front, body = split_front_matter(text)
    prose = _prose(body)
    links = tuple(dict.fromkeys(t for t in (_link_target(m) for m in _WIKILINK.findall(prose)) if t))
    tags = dict.fromkeys(_front_list(front, "tags") + _front_list(front, "tag"))
    tags.update(dict.fromkeys(_inline_tags(prose)))
    cleaned = tuple(t for t in (_clean_tag(tag) for tag in tags) if t)
    return ParsedNote(
        tuple(split_sections(body, max_chars)),
        links,
        tuple(dict.fromkeys(cleaned)),
        tuple(_front_list(front, "aliases") + _front_list(front, "alias")),
    )


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(front matter as a dict, the rest); an unreadable block is kept as text and read as no metadata."""
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        return {}, text
    import yaml

    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError:
        return {}, "\n".join(lines[end + 1 :])
    return (data if isinstance(data, dict) else {}), "\n".join(lines[end + 1 :])


def _front_list(front: dict[str, Any], key: str) -> list[str]:
    value = front.get(key)
    if isinstance(value, str):
        return [part.strip() for part in re.split(r"[,\s]+", value) if part.strip()]
    if isinstance(value, list):
        return [str(item).strip() for item in value if item is not None and str(item).strip()]
    return []


def _prose(body: str) -> str:
    """The note without fenced code, inline code and comments: where links and tags count."""
    kept: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            continue
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        kept.append(line)
    text = "\n".join(kept)
    return _INLINE_CODE.sub(" ", _COMMENTS.sub(" ", text))


def _link_target(inner: str) -> str:
    """The note a wikilink's inside names ("" for none): alias, heading and block parts dropped."""
    target = re.split(r"[|#^]", inner, maxsplit=1)[0].strip()
    if not target:
        return ""
    last = target.rsplit("/", 1)[-1]
    if "." in last and not last.lower().endswith(_NOTE_SUFFIX):
        return ""  # an attachment: ![[photo.png]], [[report.pdf]]
    return target[: -len(_NOTE_SUFFIX)] if target.lower().endswith(_NOTE_SUFFIX) else target


def _inline_tags(prose: str) -> list[str]:
    text = _MD_LINK.sub(" ", _WIKILINK.sub(" ", prose))
    return [m.group(1) for m in _TAG.finditer(text)]


def _clean_tag(tag: str) -> str:
    cleaned = tag.strip().lstrip("#").strip("/-").lower()
    if not cleaned or cleaned.replace("/", "").isdigit():
        return ""
    return cleaned


def split_sections(body: str, max_chars: int) -> list[Section]:
    """The note's sections by header (outside code), each cut to at most `max_chars`."""
    out: list[Section] = []
    path: list[tuple[int, str]] = []
    lines: list[str] = []
    fence: str | None = None

    def flush() -> None:
        text = "\n".join(lines).strip()
        if text:
            heading = SECTION_SEPARATOR.join(title for _, title in path)
            out.extend(Section(heading, piece) for piece in _pieces(text, max_chars))
        lines.clear()

    for line in body.split("\n"):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
        elif fence is not None and opened and opened.group(1)[0] == fence[0]:
            fence = None
        header = _HEADER.match(line) if fence is None and not opened else None
        if header is None:
            lines.append(line)
            continue
        flush()
        level = len(header.group(1))
        path[:] = [(lvl, title) for lvl, title in path if lvl < level] + [(level, header.group(2).strip())]
    flush()
    return out


def _pieces(text: str, max_chars: int) -> list[str]:
    """`text` in pieces of at most `max_chars`: whole paragraphs where they fit, else cut at spaces."""
    if len(text) <= max_chars:
        return [text]
    pieces: list[str] = []
    current = ""
    for paragraph in re.split(r"\n[ \t]*\n", text):
        for part in _hard_split(paragraph.strip(), max_chars):
            if current and len(current) + 2 + len(part) > max_chars:
                pieces.append(current)
                current = part
            else:
                current = f"{current}\n\n{part}" if current else part
    if current:
        pieces.append(current)
    return pieces


def _hard_split(paragraph: str, max_chars: int) -> list[str]:
    out: list[str] = []
    rest = paragraph
    while len(rest) > max_chars:
        cut = rest.rfind(" ", 0, max_chars)
        cut = cut if cut > max_chars // 2 else max_chars
        out.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        out.append(rest)
    return out
