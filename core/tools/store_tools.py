"""The agent's tools over the user's own stores, made in one place: `store_tools(...)`.

- `search_memory`: any one of the 13 collections, or (no collection) the normal multi-collection search;
  every result carries its id, date and collection.
- `expand_memory`: a conversation turn's neighbours in its session, or the turns a summary was written from.
- `get_full_document` and `recall_image` (core/tools/document_tools.py).
- `list_facts` when the fact store is there.
- `git_stats` over `session.git_repos` (core/tools/git_stats.py).
- `done`: the model ends the loop with its answer (core/tools/done.py).

The composition root builds them around the memory and fact ports (tools never import memory). Results are the
user's own records, returned as data with their dates, collections and markers; the model is told they may be
outdated. The uncertainty retry of the generation modes names `search_memory`. A tool that cannot work here
(no images yet, no repositories, no git) comes back as an `UnavailableTool` with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Literal

from core.config_memory import MEMORY_COLLECTION_NAMES
from core.config_tools import GitStatsConfig
from core.errors import ToolRetry
from core.ports import FactPort, ImageFinder, MemoryBrowser, MemoryEntry, MemoryExpansion
from core.relations import fact_sentence
from core.tools.base import Tool
from core.tools.catalog import UnavailableTool
from core.tools.document_tools import document_tool, image_tool
from core.tools.done import DONE, done_tool
from core.tools.git_stats import git_stats_tool

MEMORY_HINT = (
    r"\b(remember|recall|told you|did i|have i|my|mine|last (time|week|month|year)|earlier|before|ago|"
    r"when did|what did|who is|where (do|did|is))\b"
)
# For the composition root's tool policy: these read the user's stores (their output is private text) ...
MEMORY_TOOL_NAMES = frozenset(
    {"search_memory", "expand_memory", "get_full_document", "recall_image", "list_facts"}
)
# ... and none of these sends anything off this machine.
LOCAL_TOOL_NAMES = MEMORY_TOOL_NAMES | {"git_stats", DONE}
_TEXT_CHARS = 400  # per search result
_TURN_CHARS = 700  # per expanded turn


def store_tools(
    memory: MemoryBrowser,
    facts: FactPort | None,
    git: GitStatsConfig,
    repos: Sequence[Path],
    *,
    git_program: str | None = None,
    page_chars: int = 6000,
    images: ImageFinder | None = None,
) -> tuple[Tool | UnavailableTool, ...]:
    """Every store tool bound to this user's stores, available or with the reason it is not.

    `repos` are `session.git_repos`; `git_program` overrides the git found on PATH; `page_chars` bounds one
    page of `get_full_document`; `images` is visual memory's retrieval for `recall_image`.
    """
    made: list[Tool | UnavailableTool] = [
        _search_tool(memory),
        _expand_tool(memory),
        document_tool(memory, page_chars=page_chars),
        image_tool(memory, images),
    ]
    if facts is not None:
        made.append(_facts_tool(facts))
    made.append(git_stats_tool(git, repos, git=git_program))
    made.append(done_tool())
    return tuple(made)


def _search_tool(memory: MemoryBrowser) -> Tool:
    async def search_memory(query: str, collection: str = "", limit: int = 5) -> str:
        """Search the user's long-term memory (past conversations, summaries, notes, facts, documents).

        Args:
            query: what to look for, in plain words (names, topics, dates)
            collection: one collection to search (e.g. conversations, summaries, facts, reference_docs);
                empty searches the usual ones
            limit: how many results to return, 1 to 10
        """
        if collection and collection not in MEMORY_COLLECTION_NAMES:
            raise ToolRetry(
                f"unknown collection {collection!r}; use one of: {', '.join(MEMORY_COLLECTION_NAMES)}"
            )
        found = await memory.find(query, collection or None, max(1, min(10, limit)))
        if not found:
            return "No memories match that search."
        lines = [
            "Memories (the user's own records; they may be outdated). Give an id to expand_memory for the "
            "turns around a conversation or the turns a summary came from:"
        ]
        lines += [f"- {_head(item)} {_clipped(item.text, _TEXT_CHARS)}" for item in found]
        return "\n".join(lines)

    tool = Tool.from_function(search_memory, use_when=MEMORY_HINT)
    tool.parameters["properties"]["collection"]["enum"] = ["", *MEMORY_COLLECTION_NAMES]
    tool.parameters["properties"]["limit"].update({"minimum": 1, "maximum": 10})
    return tool


def _expand_tool(memory: MemoryBrowser) -> Tool:
    async def expand_memory(
        memory_id: str, direction: Literal["around", "before", "after"] = "around", count: int = 3
    ) -> str:
        """Show what surrounds a memory found by search_memory: the conversation turns before and after it
        (in time order), or the turns a summary was written from.

        Args:
            memory_id: the id shown in brackets by search_memory
            direction: around (both sides), before (earlier turns) or after (later turns)
            count: how many turns on each side, 1 to 10
        """
        expansion = await memory.expand(memory_id.strip(), direction, max(1, min(10, count)))
        if expansion.anchor is None:
            raise ToolRetry(f"no memory has the id {memory_id!r}; use an id in brackets from search_memory")
        return _expansion_text(expansion)

    tool = Tool.from_function(expand_memory, use_when=MEMORY_HINT)
    tool.parameters["properties"]["count"].update({"minimum": 1, "maximum": 10})
    return tool


def _expansion_text(expansion: MemoryExpansion) -> str:
    anchor = expansion.anchor
    assert anchor is not None
    if expansion.relation == "none":
        return (
            f"{anchor.id} ({anchor.collection}) has no conversation around it or sources to show. "
            f"Its full text:\n{_clipped(anchor.text, 4 * _TURN_CHARS)}"
        )
    if expansion.relation == "sources":
        title = f"The turns {anchor.id} ({anchor.collection}) was written from, in time order"
    else:
        title = "Turns of the same conversation, in time order (the one asked about is marked)"
    left_out = [
        f"{expansion.more_before} earlier" if expansion.more_before else "",
        f"{expansion.more_after} later" if expansion.more_after else "",
    ]
    note = " and ".join(part for part in left_out if part)
    lines = [f"{title}{f'; {note} not shown' if note else ''}:"]
    for item in expansion.entries:
        mark = " <- this one" if item.id == anchor.id and expansion.relation == "neighbours" else ""
        lines.append(f"- {_head(item, minutes=True)}{mark} {_clipped(item.text, _TURN_CHARS)}")
    return "\n".join(lines)


def _facts_tool(facts: FactPort) -> Tool:
    def list_facts(about: str = "") -> str:
        """List what is currently known to be true about the user (optionally only facts about a word).

        Args:
            about: a word the facts should mention, e.g. a name or "work"; empty for all
        """
        current = [
            f
            for f in facts.list_facts("current")
            if about.lower() in f"{f.subject} {f.predicate} {f.object}".lower()
        ]
        if not current:
            return "No current facts match."
        return "\n".join(f"- {fact_sentence(f.subject, f.predicate, f.object)}" for f in current[:40])

    return Tool.from_function(list_facts, use_when=MEMORY_HINT)


def _head(item: MemoryEntry, *, minutes: bool = False) -> str:
    """`[id] date, collection (markers)` before a memory's text."""
    form = "%Y-%m-%d %H:%M" if minutes else "%Y-%m-%d"
    when = datetime.fromtimestamp(item.created_at).strftime(form) if item.created_at else "date unknown"
    markers = []
    if item.superseded:
        markers.append("no longer true")
    if item.staleness > 0:
        markers.append(f"{item.staleness:.0%} of the facts it relied on changed since")
    extra = f" ({'; '.join(markers)})" if markers else ""
    return f"[{item.id}] {when}, {item.collection}{extra}:"


def _clipped(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
