"""The knowledge graph's entity resolution as visual memory's `EntityLookup` (memory/visual/tagging.py):
image tags and questions about images name entities ("Jo", "my sister") that resolve to graph ids.

Its own resolver over the service's graph (the service's lock stays the service's): the resolver rebuilds
its alias table when the graph's revision changes, so facts learnt in chat ("my sister is Jo") count at the
next lookup. The user node itself is no tag ("me" is not resolved).
"""

from __future__ import annotations

from knowledge.entities import EntityResolver, Mention
from knowledge.graph import KnowledgeGraph


class GraphEntities:
    """`mentions` and `name` over one knowledge graph."""

    def __init__(self, graph: KnowledgeGraph) -> None:
        self._graph = graph
        self._resolver = EntityResolver(graph)

    def mentions(self, text: str) -> list[Mention]:
        """Entities named in `text`, in text order. The graph may change under a read (facts are learnt in
        a worker thread while a tool reads): a read that meets a change is tried once more."""
        try:
            return self._resolver.resolve(text)
        except RuntimeError:  # "dictionary changed size during iteration"
            return self._resolver.resolve(text)

    def name(self, entity_id: str) -> str:
        """The entity's display name (its id when the graph no longer has it)."""
        entity = self._graph.entity(entity_id)
        return entity.name if entity is not None else entity_id
