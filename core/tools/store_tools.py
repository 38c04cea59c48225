"""Tools over Daemon's own memory: the agent can search it when the prompt's context was not enough.

Built by main.py around the memory and fact ports (tools never import memory). Results are the user's
own records, returned as data with their dates, collections and markers; the model is told they may be
outdated. The uncertainty retry of the generation modes names `search_memory`.
"""

from __future__ import annotations

from datetime import datetime

from core.ports import FactPort, MemoryPort
from core.relations import fact_sentence
from core.tools.base import Tool

MEMORY_HINT = (
    r"\b(remember|recall|told you|did i|have i|my|mine|last (time|week|month|year)|earlier|before|ago|"
    r"when did|what did|who is|where (do|did|is))\b"
)


def memory_tools(memory: MemoryPort, facts: FactPort | None = None) -> tuple[Tool, ...]:
    """`search_memory` (and `list_facts` when the fact store is there) bound to this user's stores."""

    async def search_memory(query: str, limit: int = 5) -> str:
        """Search the user's long-term memory (past conversations, summaries, notes, facts).

        Args:
            query: what to look for, in plain words (names, topics, dates)
            limit: how many results to return, 1 to 10
        """
        found = await memory.recall(query, "tool", max(1, min(10, limit)))
        if not found:
            return "No memories match that search."
        lines = ["Memories (the user's own records; they may be outdated):"]
        for item in found:
            when = datetime.fromtimestamp(item.created_at).strftime("%Y-%m-%d") if item.created_at else "?"
            lines.append(f"- ({when}, {item.collection}) {' '.join(item.text.split())[:400]}")
        return "\n".join(lines)

    tools = [Tool.from_function(search_memory, use_when=MEMORY_HINT)]
    if facts is not None:
        fact_port = facts

        def list_facts(about: str = "") -> str:
            """List what is currently known to be true about the user (optionally only facts about a word).

            Args:
                about: a word the facts should mention, e.g. a name or "work"; empty for all
            """
            current = [
                f
                for f in fact_port.list_facts("current")
                if about.lower() in f"{f.subject} {f.predicate} {f.object}".lower()
            ]
            if not current:
                return "No current facts match."
            return "\n".join(f"- {fact_sentence(f.subject, f.predicate, f.object)}" for f in current[:40])

        tools.append(Tool.from_function(list_facts, use_when=MEMORY_HINT))
    return tuple(tools)
