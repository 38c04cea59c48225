"""The knowledge graph behind `core.ports.KnowledgePort`: per-turn context and learning from stated facts.

One graph per data dir, loaded once (recovered from its backup if damaged) and saved atomically after every
change. Reads (entity resolution, expansion, the scoring boost) and writes (fact ingestion) come from worker
threads, so one lock guards the graph; each operation is milliseconds, far below a turn's cost.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from core.ports import ExtractedFact, FactChange, GraphContext
from core.relations import USER_ID, VAGUE_TYPES, canonical_relation
from knowledge.entities import EntityResolver
from knowledge.expansion import Expanded, expand, graph_bonus, graph_sentences
from knowledge.graph import KnowledgeGraph
from knowledge.graph_facts import Triple, ingest_triples
from knowledge.graph_store import GraphStore

logger = logging.getLogger(__name__)
T = TypeVar("T")


class KnowledgeService:
    """Entity resolution, graph context and fact ingestion over one persisted `KnowledgeGraph`."""

    def __init__(self, store: GraphStore, *, max_sentences: int = 8, min_confidence: float = 0.5) -> None:
        self._store = store
        self._graph = store.load()
        self._resolver = EntityResolver(self._graph)
        self._max_sentences = max_sentences
        self._min_confidence = min_confidence
        self._lock = threading.Lock()

    @property
    def graph(self) -> KnowledgeGraph:
        """The live graph (for read-only views such as a `graph` command); mutate only through `learn`."""
        return self._graph

    def context_for(self, text: str) -> GraphContext:
        """Entities named in `text` ("my sister" is whoever is the user's sister), their strongest facts
        and a memory boost. The user alone is no seed: the profile section covers the user's own facts."""
        with self._lock:
            seeds = [e for e in self._resolver.resolve_ids(text, include_user=True) if e != USER_ID]
            if not seeds:
                return GraphContext()
            expanded = expand(self._graph, seeds)
            sentences = graph_sentences(self._graph, seeds, self._max_sentences, expanded=expanded)
            names = tuple(self._name(entity) for entity in seeds)
        return GraphContext(names, tuple(sentences), _Boost(self, tuple(seeds), tuple(expanded)))

    def boost(
        self, seeds: Sequence[str], expanded: Sequence[Expanded], texts: Mapping[str, str]
    ) -> dict[str, float]:
        """Memory id -> bonus for texts that mention the seeds or their expansion."""
        with self._lock:
            return graph_bonus(self._graph, seeds, texts, expanded=expanded, resolver=self._resolver)

    def learn(self, facts: Sequence[ExtractedFact], source_id: str, at: float) -> int:
        """Add a turn's facts to the graph and save it; a negated fact ("I no longer work at Acme") ends
        the matching current edge (kept as history). Returns how many facts changed the graph."""
        if not facts:
            return 0
        with self._lock:
            revision = self._graph.revision
            changed = self._apply(facts, source_id, at)
            if self._graph.revision != revision:
                self._store.save(self._graph)
        return changed

    @property
    def saved_at(self) -> float | None:
        """When the graph as loaded was saved (None: no saved graph could be loaded)."""
        return self._store.saved_at

    def catch_up(self, changes: Sequence[FactChange]) -> int:
        """Replay, in order, what the fact store changed after the graph's last save (`saved_at`): a crash
        between the two writes, or a graph recovered from an older backup, loses nothing the user told.
        One save at the end; returns how many facts changed the graph."""
        with self._lock:
            revision = self._graph.revision
            changed = sum(self._apply([c.fact], c.source_id, c.at) for c in changes)
            if self._graph.revision != revision:
                self._store.save(self._graph)
        if changed:
            logger.warning("the knowledge graph was behind the fact store; re-learned %d fact(s)", changed)
        return changed

    def _apply(self, facts: Sequence[ExtractedFact], source_id: str, at: float) -> int:
        stated = [f for f in facts if not f.negated]
        triples = [Triple(f.subject, f.predicate, f.object, f.confidence, source_id, at) for f in stated]
        report = ingest_triples(self._graph, triples, min_confidence=self._min_confidence)
        ended = sum(self._end(f, at) for f in facts if f.negated)
        return report.edges + report.attributes + ended

    def edit(self, change: Callable[[KnowledgeGraph], T]) -> T:
        """Run `change` on the graph under the lock and save the graph if it changed (the source syncs'
        `knowledge.source_sync.GraphEditor`: a vault's links and tags)."""
        with self._lock:
            revision = self._graph.revision
            result = change(self._graph)
            if self._graph.revision != revision:
                self._store.save(self._graph)
        return result

    def snapshot(self) -> KnowledgeGraph:
        """A copy of the graph taken under the lock, for long reads in another thread (synthesis walks)."""
        with self._lock:
            return KnowledgeGraph.from_node_link(self._graph.to_node_link())

    def entity_type(self, name: str) -> str | None:
        """`core.ports.EntityTypes`: the graph's type of the entity so named (None: unknown or vague)."""
        with self._lock:
            found = self._graph.find(name)
            entity = self._graph.entity(found) if found is not None else None
        return entity.type if entity is not None and entity.type not in VAGUE_TYPES else None

    def _end(self, fact: ExtractedFact, at: float) -> int:
        """End the current edges the negated fact names; unknown entities are not created for it."""
        relation, inverted = canonical_relation(fact.predicate)
        subject, obj = (fact.object, fact.subject) if inverted else (fact.subject, fact.object)
        sources = self._resolver.resolve_ids(subject, include_user=True)[:1]
        targets = set(self._resolver.resolve_ids(obj, include_user=True)[:1])
        ended = 0
        for edge in self._graph.edges(sources[0], relation) if sources else []:
            if edge.target in targets:
                self._graph.end_relation(edge, at=at)
                ended += 1
        return ended

    def _name(self, entity_id: str) -> str:
        entity = self._graph.entity(entity_id)
        return entity.name if entity is not None else entity_id


class _Boost:
    """`core.ports.GraphBoost` for one turn: the seeds and expansion found for its message."""

    def __init__(self, service: KnowledgeService, seeds: tuple[str, ...], expanded: tuple[Expanded, ...]):
        self._service = service
        self._seeds = seeds
        self._expanded = expanded

    def __call__(self, texts: Mapping[str, str]) -> Mapping[str, float]:
        return self._service.boost(self._seeds, self._expanded, texts)
