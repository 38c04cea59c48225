"""Open one stored item (a cited memory, a document chunk, a web page) as safe Markdown for the GUI."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from core.text import clip
from memory.browse import MemoryReader
from memory.service import MemoryService
from ui.shared import render

_WEB = re.compile(r"https?://", re.IGNORECASE)
_UNSAFE_URL = re.compile(r"[\s<>`\\\[\]]")
_SHOWN_FIELDS = ("title", "file_path", "section", "session_id", "status", "staleness_ratio", "superseded_by")


async def open_citation(memory: MemoryService | None, citation: Mapping[str, Any]) -> str:
    """What a clicked source shows: the stored record it names (with its collection and where it came
    from), else the link or text the citation carries."""
    record_id = str(citation.get("id") or "")
    if memory is not None and record_id:
        shown = await open_record(memory, record_id)
        if shown:
            return shown
    url, text = str(citation.get("url") or ""), citation.get("text") or citation.get("title") or ""
    lines = [f"**{clip(str(text), 200, one_line=True)}**" if text else "**Source**"]
    if _WEB.match(url) and not _UNSAFE_URL.search(url):
        # labelled by its host name (no Markdown in it); brackets encoded so the URL cannot end the link
        safe = url.replace("(", "%28").replace(")", "%29")
        lines.append(f"[{urlsplit(url).hostname or 'link'}]({safe})")
    elif url:
        lines.append(
            f"`{url.replace('`', '')[:200]}`"
        )  # not http(s) (javascript:, data:…): shown, never linked
    return render.neutralize_remote_media("\n\n".join(lines))


async def open_record(memory: MemoryService, record_id: str) -> str:
    """The record `record_id` (any collection) as Markdown; "" when it is unknown or hidden."""
    expansion = await MemoryReader(memory).expand(record_id, "around", 0)
    anchor = expansion.anchor
    if anchor is None:
        return ""
    meta = anchor.metadata
    facts = [f"`{key}`: {clip(str(meta[key]), 120, one_line=True)}" for key in _SHOWN_FIELDS if meta.get(key)]
    head = f"**{anchor.collection}** · `{anchor.id}`"
    body = "\n\n".join([head, "  \n".join(facts), anchor.text])
    return render.neutralize_remote_media(body)
