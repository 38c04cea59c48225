"""The knowledge graph: typed entities and time-scoped, canonical relations over a networkx MultiDiGraph.

Nodes are entities keyed by a normalised id (`new_york`), with a display name, a type, aliases, a mention
count, first/last seen times and free attributes (values that are not graph-worthy entities: a birthday, an
age). Edges carry a canonical relation (`lives_in`), a weight (grows with re-mentions), a truth in [0, 1],
the ids of the facts that asserted them and a validity interval. A MultiDiGraph keeps every relation
between a pair of nodes (the original kept one edge per pair, so two relations silently overwrote each
other). A new value for a functional relation (`lives_in`, `works_at`, ...) supersedes the current edge:
the old edge stays, marked `superseded` with `valid_to` set; nothing is deleted.

The vocabulary (relation names, types, normalisation) lives in knowledge/relations.py. networkx is imported
when a graph is built, never at module import.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Any

from core.relations import (
    ENTITY_TYPES,
    FUNCTIONAL_RELATIONS,
    USER_ID,
    VAGUE_TYPES,
    canonical_relation,
    make_entity_id,
    normalize,
    to_epoch,
)


@dataclass(frozen=True)
class Entity:
    """A read-only view of one node."""

    id: str
    name: str
    type: str
    aliases: tuple[str, ...]
    mentions: int
    first_seen: float
    last_seen: float
    attributes: Mapping[str, Any]


@dataclass(frozen=True)
class Edge:
    """A read-only view of one edge; (`source`, `target`, `key`) identifies it."""

    source: str
    target: str
    key: str
    relation: str
    weight: float
    truth: float
    fact_ids: tuple[str, ...]
    valid_from: float
    valid_to: float | None
    superseded: bool
    superseded_by: str | None


def _edge(source: str, target: str, key: str, data: Mapping[str, Any]) -> Edge:
    return Edge(
        source=source,
        target=target,
        key=key,
        relation=str(data.get("relation", key)),
        weight=float(data.get("weight", 1.0)),
        truth=float(data.get("truth", 0.5)),
        fact_ids=tuple(data.get("fact_ids", ())),
        valid_from=float(data.get("valid_from", 0.0)),
        valid_to=None if data.get("valid_to") is None else float(data["valid_to"]),
        superseded=bool(data.get("superseded", False)),
        superseded_by=data.get("superseded_by"),
    )


class KnowledgeGraph:
    """Entities and relations with history. All mutation goes through these methods (they bump `revision`)."""

    def __init__(self, clock: Callable[[], float] = time.time, *, nx_graph: Any = None) -> None:
        import networkx as nx

        self._g = nx_graph if nx_graph is not None else nx.MultiDiGraph()
        self._clock = clock
        self.revision = 0  # bumped by every change: resolvers rebuild their alias index, stores save
        self._names: dict[str, set[str]] = {}  # normalised name/alias -> ids, kept in step with the nodes
        for node_id, node in self._g.nodes(data=True):
            for name in [node.get("name", ""), *node.get("aliases", ())]:
                self._names.setdefault(normalize(str(name)), set()).add(node_id)

    @property
    def nx(self) -> Any:
        """The underlying networkx MultiDiGraph, for read-only algorithms. Do not mutate it directly."""
        return self._g

    def __contains__(self, entity_id: object) -> bool:
        return entity_id in self._g

    def __len__(self) -> int:
        return self._g.number_of_nodes()

    def _now(self, at: float | int | datetime | str | None) -> float:
        return to_epoch(at, self._clock())

    # --- entities -----------------------------------------------------------------------------------------
    def add_entity(
        self,
        name: str,
        type: str = "thing",
        *,
        aliases: Iterable[str] = (),
        at: float | datetime | str | None = None,
        entity_id: str | None = None,
    ) -> str:
        """Create or re-mention an entity; return its id. A specific type replaces a vague one."""
        eid = entity_id or make_entity_id(name) or f"entity_{self._g.number_of_nodes()}"
        now = self._now(at)
        etype = type if type in ENTITY_TYPES else "other"
        if eid not in self._g:
            self._g.add_node(eid, name=name.strip() or eid, type=etype, aliases=[], mentions=0)
            self._g.nodes[eid].update(first_seen=now, last_seen=now, attributes={})
            self._names.setdefault(normalize(self._g.nodes[eid]["name"]), set()).add(eid)
        node = self._g.nodes[eid]
        node["mentions"] = int(node.get("mentions", 0)) + 1
        node["first_seen"] = min(float(node.get("first_seen", now)), now)
        node["last_seen"] = max(float(node.get("last_seen", now)), now)
        if node.get("type") in VAGUE_TYPES and etype not in VAGUE_TYPES:
            node["type"] = etype
        for alias in aliases:
            self._add_alias(eid, alias)
        self.revision += 1
        return eid

    def ensure_user(self) -> str:
        """The node that stands for the user (created on first use)."""
        if USER_ID not in self._g:
            self.add_entity("the user", "person", entity_id=USER_ID)
        return USER_ID

    def _add_alias(self, entity_id: str, alias: str) -> None:
        node = self._g.nodes[entity_id]
        alias = " ".join(alias.split())
        known = {normalize(a) for a in node.get("aliases", [])} | {normalize(node.get("name", ""))}
        if alias and normalize(alias) and normalize(alias) not in known:
            node.setdefault("aliases", []).append(alias)
            self._names.setdefault(normalize(alias), set()).add(entity_id)

    def add_alias(self, entity_id: str, alias: str) -> None:
        """Register another name for an entity ("Aunt May", "NYC")."""
        self._require(entity_id)
        self._add_alias(entity_id, alias)
        self.revision += 1

    def set_type(self, entity_id: str, type: str) -> None:
        """Set an entity's type outright (a user correction, or certain evidence such as "my dog")."""
        self._require(entity_id)
        self._g.nodes[entity_id]["type"] = type if type in ENTITY_TYPES else "other"
        self.revision += 1

    def set_attribute(self, entity_id: str, key: str, value: Any, *, at: Any = None) -> None:
        """Record a non-entity value (birthday, age); a changed value keeps the old one in `history`."""
        self._require(entity_id)
        node = self._g.nodes[entity_id]
        attributes = node.setdefault("attributes", {})
        now = self._now(at)
        if key in attributes and attributes[key] != value:
            node.setdefault("history", []).append({"key": key, "value": attributes[key], "valid_to": now})
        attributes[key] = value
        self.revision += 1

    def entity(self, entity_id: str) -> Entity | None:
        """The entity with this id, or None."""
        if entity_id not in self._g:
            return None
        node = self._g.nodes[entity_id]
        return Entity(
            id=entity_id,
            name=str(node.get("name", entity_id)),
            type=str(node.get("type", "thing")),
            aliases=tuple(node.get("aliases", ())),
            mentions=int(node.get("mentions", 0)),
            first_seen=float(node.get("first_seen", 0.0)),
            last_seen=float(node.get("last_seen", 0.0)),
            attributes=MappingProxyType(dict(node.get("attributes", {}))),
        )

    def entities(self) -> list[Entity]:
        """Every entity, in insertion order."""
        return [e for e in (self.entity(n) for n in self._g.nodes) if e is not None]

    def find(self, name: str) -> str | None:
        """The id of the entity with this id, name or alias (exact after normalisation), or None."""
        eid = make_entity_id(name)
        if eid in self._g:
            return eid
        found = [n for n in self._names.get(normalize(name), ()) if n in self._g]
        if not found:
            return None
        return max(sorted(found), key=lambda n: int(self._g.nodes[n].get("mentions", 0)))

    def neighbors(self, entity_id: str, *, include_superseded: bool = False) -> set[str]:
        """Entities linked to this one in either direction (by current edges unless asked otherwise)."""
        return {
            (e.target if e.source == entity_id else e.source)
            for e in self.edges_of(entity_id, include_superseded=include_superseded)
        } - {entity_id}

    def _require(self, entity_id: str) -> None:
        if entity_id not in self._g:
            raise KeyError(f"unknown entity {entity_id!r}")

    # --- edges --------------------------------------------------------------------------------------------
    def edges(
        self,
        source: str | None = None,
        relation: str | None = None,
        target: str | None = None,
        *,
        include_superseded: bool = False,
    ) -> list[Edge]:
        """Edges matching the given endpoints/relation; superseded ones only when asked."""
        if source is not None and source not in self._g:
            return []
        if source is not None:
            view = self._g.out_edges(source, keys=True, data=True)
        else:
            view = self._g.edges(keys=True, data=True)
        return [
            _edge(u, v, key, data)
            for u, v, key, data in view
            if (target is None or v == target)
            and (relation is None or data.get("relation") == relation)
            and (include_superseded or not data.get("superseded"))
        ]

    def edges_of(self, entity_id: str, *, include_superseded: bool = False) -> list[Edge]:
        """Edges touching an entity in either direction."""
        if entity_id not in self._g:
            return []
        out_view = self._g.out_edges(entity_id, keys=True, data=True)
        in_view = self._g.in_edges(entity_id, keys=True, data=True)
        seen = [_edge(u, v, k, d) for u, v, k, d in [*out_view, *in_view]]
        unique = {(e.source, e.target, e.key): e for e in seen}
        return [e for e in unique.values() if include_superseded or not e.superseded]

    def add_relation(
        self,
        source: str,
        relation: str,
        target: str,
        *,
        truth: float = 0.8,
        weight: float = 1.0,
        fact_id: str | None = None,
        at: float | datetime | str | None = None,
    ) -> Edge:
        """Assert `source relation target`; both entities must exist. Returns the current edge.

        A re-mention strengthens the current edge (weight adds, truths combine as independent evidence). For
        a functional relation a different target supersedes the current edge; an assertion older than the
        current edge is recorded as already superseded history. Re-asserting a fact id already recorded on
        the edge changes nothing, so replaying a session's facts (a resumed shutdown) is harmless.
        """
        relation, inverted = canonical_relation(relation)
        if inverted:
            source, target = target, source
        self._require(source)
        self._require(target)
        if fact_id:
            for seen in self.edges(source, relation, target, include_superseded=True):
                if fact_id in seen.fact_ids:
                    return seen
        now = self._now(at)
        truth = min(1.0, max(0.0, float(truth)))
        for edge in self.edges(source, relation, target):
            return self._reinforce(edge, truth, weight, fact_id, now)
        key = self._next_key(relation)
        data = {"relation": relation, "weight": float(weight), "truth": truth, "valid_from": now}
        data.update(valid_to=None, superseded=False, superseded_by=None, last_seen=now)
        data["fact_ids"] = [fact_id] if fact_id else []
        current = self.edges(source, relation) if relation in FUNCTIONAL_RELATIONS else []
        later = [e for e in current if e.valid_from > now]
        if later:  # an old assertion arriving late: history, not the present
            first = min(later, key=lambda e: e.valid_from)
            data.update(superseded=True, valid_to=first.valid_from, superseded_by=first.key)
        self._g.add_edge(source, target, key=key, **data)
        if not later:
            for old in current:
                self._supersede(old, now, key)
        self.revision += 1
        return _edge(source, target, key, data)

    def end_relation(self, edge: Edge, *, at: Any = None, superseded_by: str | None = None) -> None:
        """Mark an edge as no longer true (kept as history, `valid_to` set)."""
        self._supersede(edge, self._now(at), superseded_by)
        self.revision += 1

    def _supersede(self, edge: Edge, at: float, by: str | None) -> None:
        data = self._g.edges[edge.source, edge.target, edge.key]
        data.update(superseded=True, valid_to=max(at, float(data.get("valid_from", at))), superseded_by=by)

    def _reinforce(self, edge: Edge, truth: float, weight: float, fact_id: str | None, now: float) -> Edge:
        data = self._g.edges[edge.source, edge.target, edge.key]
        data["weight"] = float(data.get("weight", 1.0)) + float(weight)
        data["truth"] = 1.0 - (1.0 - float(data.get("truth", 0.5))) * (1.0 - truth)
        if fact_id and fact_id not in data.setdefault("fact_ids", []):
            data["fact_ids"].append(fact_id)
        data["last_seen"] = max(float(data.get("last_seen", now)), now)
        self.revision += 1
        return _edge(edge.source, edge.target, edge.key, data)

    def _next_key(self, relation: str) -> str:
        sequence = int(self._g.graph.get("edge_seq", 0)) + 1
        self._g.graph["edge_seq"] = sequence
        return f"{relation}#{sequence}"

    def merge(self, keep: str, drop: str) -> None:
        """Fold entity `drop` into `keep` (same real-world thing): edges, aliases, mentions, attributes."""
        self._require(keep)
        self._require(drop)
        if keep == drop:
            return
        for u, v, key, data in list(self._g.edges(drop, keys=True, data=True)) + list(
            self._g.in_edges(drop, keys=True, data=True)
        ):
            src, dst = (keep if u == drop else u), (keep if v == drop else v)
            if src != dst:
                self._g.add_edge(src, dst, key=key, **data)
        gone, node = self._g.nodes[drop], self._g.nodes[keep]
        placeholder = bool(gone.get("attributes", {}).get("placeholder"))
        for alias in [] if placeholder else [gone.get("name", ""), *gone.get("aliases", ())]:
            self._add_alias(keep, alias)
        node["mentions"] = int(node.get("mentions", 0)) + int(gone.get("mentions", 0))
        node["first_seen"] = min(float(node.get("first_seen", 0.0)), float(gone.get("first_seen", 0.0)))
        node["last_seen"] = max(float(node.get("last_seen", 0.0)), float(gone.get("last_seen", 0.0)))
        attributes = {**gone.get("attributes", {}), **node.get("attributes", {})}
        if not node.get("attributes", {}).get("placeholder"):
            attributes.pop("placeholder", None)  # a named entity absorbing a placeholder stays named
        node["attributes"] = attributes
        self._g.remove_node(drop)
        for ids in self._names.values():
            ids.discard(drop)
        self.revision += 1

    def purge_facts(
        self,
        fact_ids: Iterable[str],
        keep: Iterable[str] = (),
        saying: set[tuple[str, str]] | None = None,
    ) -> int:
        """Forget what these provenance ids told (a relation's `fact_ids` name the turn or fact it came
        from): a relation only they supported goes, then any entity it connected that is left with no
        relation (its name was among the purged words), except those in `keep` (the user). `saying`: only
        relations of these (relation, normalised value) pairs. How many relations and entities went."""
        gone = set(fact_ids)
        edges = []
        for u, v, key, data in self._g.edges(keys=True, data=True):
            supported = set(data.get("fact_ids", ()))
            other_end = self._g.nodes[u if v == USER_ID else v].get("name", "")  # the value's end
            if saying is not None and (data.get("relation", ""), normalize(str(other_end))) not in saying:
                continue
            if supported & gone:
                data["fact_ids"] = [f for f in data.get("fact_ids", ()) if f not in gone]
                if not data["fact_ids"]:
                    edges.append((u, v, key))
        self._g.remove_edges_from(edges)
        touched = {u for u, _, _ in edges} | {v for _, v, _ in edges}
        lonely = [n for n in touched - set(keep) if n in self._g and self._g.degree(n) == 0]
        self._g.remove_nodes_from(lonely)
        for ids in self._names.values():
            ids.difference_update(lonely)
        self.revision += 1
        return len(edges) + len(lonely)

    def absorb(self, other: KnowledgeGraph) -> int:
        """Add the entities and relations of `other` this graph lacks (an imported graph), by id; where both
        hold one, this graph's version stays. The number added."""
        added = 0
        for node_id, data in other.nx.nodes(data=True):
            if node_id not in self._g:
                self._g.add_node(node_id, **data)
                for name in [data.get("name", ""), *data.get("aliases", ())]:
                    self._names.setdefault(normalize(str(name)), set()).add(node_id)
                added += 1
        for u, v, key, data in other.nx.edges(keys=True, data=True):
            if not self._g.has_edge(u, v, key):
                self._g.add_edge(u, v, key=key, **data)
                added += 1
        theirs = int(other.nx.graph.get("edge_seq", 0))
        self._g.graph["edge_seq"] = max(int(self._g.graph.get("edge_seq", 0)), theirs)
        self.revision += 1 if added else 0
        return added

    # --- serialisation ------------------------------------------------------------------------------------
    def to_node_link(self) -> dict[str, Any]:
        """The graph as networkx node-link data (JSON-serialisable)."""
        import networkx as nx

        return nx.node_link_data(self._g, edges="edges")

    @classmethod
    def from_node_link(
        cls, data: Mapping[str, Any], clock: Callable[[], float] = time.time
    ) -> KnowledgeGraph:
        """Rebuild a graph from node-link data; raises ValueError if it is not a valid directed multigraph."""
        import networkx as nx

        if not isinstance(data, Mapping) or not isinstance(data.get("nodes"), list):
            raise ValueError("node-link data needs a 'nodes' list")
        if not isinstance(data.get("edges"), list):
            raise ValueError("node-link data needs an 'edges' list")
        try:
            graph = nx.node_link_graph(dict(data), directed=True, multigraph=True, edges="edges")
        except (KeyError, TypeError, AttributeError, nx.NetworkXError) as error:
            raise ValueError(f"invalid node-link data: {error}") from None
        for node_id, node in graph.nodes(data=True):
            if not isinstance(node_id, str) or not isinstance(node.get("name", ""), str):
                raise ValueError(f"invalid node {node_id!r}")
        return cls(clock, nx_graph=graph)
