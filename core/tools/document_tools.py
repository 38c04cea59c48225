"""Tools over the user's documents and images: `get_full_document` and `recall_image`.

`get_full_document` finds a document of `reference_docs` by a fuzzy title (difflib: no extra dependency)
and returns it reassembled in chunk order, one bounded page at a time; several close titles give a
"did you mean" list, none a clear "no document titled …". `recall_image` searches the captions (and file
names) of `visual_memories`. Both read through `core.ports.MemoryBrowser`; tools never import memory.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from core.errors import ToolRetry
from core.ports import DocumentInfo, ImageFinder, MemoryBrowser, MemoryEntry
from core.tools.base import Tool
from core.tools.catalog import UnavailableTool

DOCUMENT_HINT = r"\b(document|doc|file|notes?|paper|manual|pdf|report|article|read|open|show me)\b"
IMAGE_HINT = r"\b(image|photo|picture|pic|screenshot|selfie|drawing|scan)s?\b"
_NON_WORD = re.compile(r"[\W_]+")
_MATCH = 0.6  # a title at least this similar is a candidate
_CLEAR_LEAD = 0.15  # the best candidate is taken alone when it leads the next by this much
_MAX_SUGGESTIONS = 5


@dataclass(frozen=True)
class TitleMatch:
    """The result of matching a title: the one document meant, else close candidates (best first)."""

    document: DocumentInfo | None
    candidates: tuple[DocumentInfo, ...] = ()


def _norm(text: str) -> str:
    return " ".join(_NON_WORD.sub(" ", text.casefold()).split())


def _similarity(query: str, title: str) -> float:
    """difflib's ratio, or, when every query word is in the title, at least 0.8 ("budget" ~ "Budget 2026")."""
    ratio = difflib.SequenceMatcher(None, query, title).ratio()
    words = set(query.split())
    if words and words <= set(title.split()):
        ratio = max(ratio, 0.8)
    return ratio


def match_title(asked: str, documents: Sequence[DocumentInfo]) -> TitleMatch:
    """The document `asked` names: by id, exact title or file name, else the clearly closest title."""
    query = _norm(asked)
    if not query:
        return TitleMatch(None)
    exact = [d for d in documents if asked.strip() == d.document_id or query in _names(d)]
    if len(exact) == 1:
        return TitleMatch(exact[0])
    if exact:  # the same title twice: the ids tell them apart
        return TitleMatch(None, tuple(exact[:_MAX_SUGGESTIONS]))
    scored = sorted(
        ((max((_similarity(query, n) for n in _names(d)), default=0.0), d) for d in documents),
        key=lambda p: -p[0],
    )
    close = [(score, d) for score, d in scored if score >= _MATCH]
    if len(close) == 1 or (close and close[0][0] - close[1][0] >= _CLEAR_LEAD):
        return TitleMatch(close[0][1])
    return TitleMatch(None, tuple(d for _, d in close[:_MAX_SUGGESTIONS]))


def _names(doc: DocumentInfo) -> tuple[str, ...]:
    """What a document may be called: its title and its file name without the extension (normalised)."""
    return tuple(n for n in (_norm(doc.title), _norm(_file_stem(doc.source_path))) if n)


def _file_stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name else name


def _describe(doc: DocumentInfo) -> str:
    where = f", {doc.source_path}" if doc.source_path else ""
    return f'"{doc.title or "(untitled)"}" (id {doc.document_id}{where})'


def document_tool(memory: MemoryBrowser, *, page_chars: int = 6000) -> Tool:
    """`get_full_document` over `reference_docs`, returning at most `page_chars` characters per call."""

    async def get_full_document(title: str, part: int = 1) -> str:
        """Read a whole stored document (one the user added to memory) by its title.

        Args:
            title: the document's title as the user says it (close spelling is fine), or its id
            part: which part of a long document to read, 1 for the start
        """
        documents = await memory.documents()
        found = match_title(title, documents)
        if found.document is None and found.candidates:
            options = "\n".join(f"- {_describe(d)}" for d in found.candidates)
            ask = "Call again with one id."
            return f"Several documents could be meant by {title!r}. Did you mean:\n{options}\n{ask}"
        if found.document is None:
            return f"No document titled {title!r} is stored ({len(documents)} documents in memory)."
        text = await memory.document(found.document.document_id)
        if text is None:
            return f"No document titled {title!r} is stored (it was removed)."
        return _page(text.info, text.text, text.missing, part, page_chars)

    tool = Tool.from_function(get_full_document, use_when=DOCUMENT_HINT)
    tool.parameters["properties"]["part"]["minimum"] = 1
    return tool


def _page(info: DocumentInfo, text: str, missing: tuple[int, ...], part: int, size: int) -> str:
    """One page of a document with a header saying which part it is and how to read the next."""
    pages = max(1, -(-len(text) // size))
    if part < 1 or part > pages:
        raise ToolRetry(f"part must be between 1 and {pages} for this document")
    start = (part - 1) * size
    header = f"Document {_describe(info)}, part {part} of {pages} ({len(text):,} characters)"
    if missing:
        header += f"; chunks {', '.join(map(str, missing))} are missing from the store"
    footer = f"\n[Call get_full_document again with part={part + 1} for the rest.]" if part < pages else ""
    return f"{header}:\n{text[start : start + size]}{footer}"


def image_tool(memory: MemoryBrowser, images: ImageFinder | None = None) -> Tool | UnavailableTool:
    """`recall_image` over `visual_memories`; unavailable while that collection is empty. With `images`
    (visual memory's retrieval: entity, then CLIP, else captions) it searches through that and says how."""
    description = "Find images the user saved in memory by what they show: file path, caption and date."
    if memory.counts().get("visual_memories", 0) == 0:
        return UnavailableTool("recall_image", description, "no images in memory yet")

    async def recall_image(query: str, limit: int = 3) -> str:
        """Find images the user saved in memory by what they show: file path, caption and date.

        Args:
            query: what the image shows or its file name, in plain words
            limit: how many images to return, 1 to 10
        """
        limit = max(1, min(10, limit))
        how = ""
        if images is not None:
            matches = await images.find_images(query, limit)
            found, how = list(matches.entries), f" (found {matches.how})"
        else:
            found = await memory.find(query, "visual_memories", limit)
        if not found:
            return "No stored image matches that description" + how + "."
        return f"Images (the user's own records){how}:\n" + "\n".join(_image_line(e) for e in found)

    tool = Tool.from_function(recall_image, description=description, use_when=IMAGE_HINT)
    tool.parameters["properties"]["limit"].update({"minimum": 1, "maximum": 10})
    return tool


def _image_line(item: MemoryEntry) -> str:
    meta = item.metadata
    when = datetime.fromtimestamp(item.created_at).strftime("%Y-%m-%d") if item.created_at else "date unknown"
    size = f", {meta['width']}x{meta['height']}" if "width" in meta and "height" in meta else ""
    kind = f", {meta['media_type']}" if meta.get("media_type") else ""
    caption = " ".join(item.text.split())[:300]
    return f"- {meta.get('image_path', '(no path)')} ({when}{kind}{size}) [{item.id}]: {caption}"
