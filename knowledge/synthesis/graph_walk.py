"""Generator 1: biased Markov random walks over the knowledge graph that end in another domain.

From a random entity, each step moves to a neighbour with probability proportional to the edge's weight
times its truth, divided by the neighbour's degree to the power `hub_damping` (hubs such as "work" or
"home" would otherwise pull every walk through them and make every link "both involve home"). The user's
own node is never walked through: "you care about both" is the one connection that is always true. A
walk stops when it reaches an entity of another domain than where it started, at least two steps away
(a direct edge is a stored fact, not a discovery); that pair, with the path's facts as the bridge, is a
candidate. Entities are read for their domain by their name and their facts.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.relations import USER_ID
from knowledge.expansion import is_junk, render_edge
from knowledge.graph import Edge, KnowledgeGraph
from knowledge.synthesis.candidate import Candidate, Endpoint
from knowledge.synthesis.domains import UNASSIGNED, DomainReading

GENERATOR = "graph_walk"
_PLURAL = {"is": "are", "has": "have", "does": "do", "was": "were"}  # "Both X and Y are …"


@dataclass(frozen=True)
class WalkSettings:
    """How walks go (config `synthesis.graph_walk`)."""

    walks: int = 200
    max_steps: int = 4
    hub_damping: float = 1.0


class GraphWalker:
    """Proposes candidates from walks over `graph`; `read_domains` reads entities' descriptions."""

    def __init__(
        self,
        graph: KnowledgeGraph,
        read_domains: Callable[[Sequence[str]], list[DomainReading]],
        *,
        settings: WalkSettings | None = None,
    ) -> None:
        self._graph = graph
        self._read_domains = read_domains
        self.settings = settings or WalkSettings()

    def propose(self, rng: random.Random, limit: int) -> list[Candidate]:
        """Up to `limit` candidates (distinct endpoint pairs) from `settings.walks` walks."""
        nodes = [e.id for e in self._graph.entities() if e.id != USER_ID and not is_junk(self._graph, e.id)]
        nodes = [n for n in nodes if self._steps(n)]
        if len(nodes) < 3:
            return []
        readings = self._read_domains([self.describe(n) for n in nodes])
        domains = {node: reading.domain for node, reading in zip(nodes, readings, strict=True)}
        found: dict[frozenset[str], Candidate] = {}
        for _ in range(self.settings.walks):
            if len(found) >= limit:
                break
            path = self._walk(rng.choice(nodes), domains, rng)
            if path is not None:
                candidate = self._candidate(path)
                found.setdefault(frozenset((path[0][0], path[-1][1])), candidate)
        return list(found.values())

    def describe(self, entity_id: str, facts: int = 3) -> str:
        """An entity in words: its name and its strongest facts (what its domain is read from)."""
        edges = sorted(self._graph.edges_of(entity_id), key=lambda e: -e.weight * e.truth)
        sentences = [render_edge(self._graph, e) for e in edges if USER_ID not in (e.source, e.target)]
        entity = self._graph.entity(entity_id)
        name = entity.name if entity else entity_id
        return " ".join([f"{name}.", *sentences[:facts]]) if sentences else f"{name}."

    def _steps(self, node: str) -> list[tuple[str, Edge]]:
        out = []
        for edge in self._graph.edges_of(node):
            other = edge.target if edge.source == node else edge.source
            if other != USER_ID and other != node:
                out.append((other, edge))
        return out

    def _walk(
        self, start: str, domains: dict[str, str], rng: random.Random
    ) -> list[tuple[str, str, Edge]] | None:
        """The path as (from, to, edge) steps, ending in another domain; None when the walk found none."""
        origin = domains.get(start, UNASSIGNED)
        if origin == UNASSIGNED:
            return None
        path: list[tuple[str, str, Edge]] = []
        seen, here = {start}, start
        for step in range(self.settings.max_steps):
            options = [(n, e) for n, e in self._steps(here) if n not in seen]
            if not options:
                return None
            weights = [
                max(e.weight, 0.01) * max(e.truth, 0.01) / (len(self._steps(n)) ** self.settings.hub_damping)
                for n, e in options
            ]
            nxt, edge = rng.choices(options, weights=weights)[0]
            path.append((here, nxt, edge))
            seen.add(nxt)
            here = nxt
            there = domains.get(here, UNASSIGNED)
            if step >= 1 and there not in (UNASSIGNED, origin):
                return path
        return None

    def _candidate(self, path: list[tuple[str, str, Edge]]) -> Candidate:
        start, end = path[0][0], path[-1][1]
        names = [self._name(start), *(self._name(to) for _, to, _ in path)]
        first_fact, last_fact = path[0][2].fact_ids, path[-1][2].fact_ids
        return Candidate(
            Endpoint(self.describe(start), first_fact[0] if first_fact else "", "facts"),
            Endpoint(self.describe(end), last_fact[0] if last_fact else "", "facts"),
            self._bridge(path, names),
            GENERATOR,
            via=" → ".join(names),
        )

    def _bridge(self, path: list[tuple[str, str, Edge]], names: list[str]) -> str:
        """The path in words. Two ends sharing one neighbour by the same relation read as what they have
        in common ("X and Y have this in common: both need Z"); any other path as its facts in order."""
        first, last = path[0][2], path[-1][2]
        shared = len(path) == 2 and first.relation == last.relation and first.target == last.target
        if shared:
            verb, _, rest = first.relation.replace("_", " ").partition(" ")
            plural = _PLURAL.get(verb) or (
                verb[:-1] if verb.endswith("s") and not verb.endswith("ss") else verb
            )
            shared_part = " ".join(filter(None, (plural, rest)))
            return f"{names[0]} and {names[-1]} have this in common: both {shared_part} {names[1]}."
        facts = [render_edge(self._graph, edge).rstrip(".") for _, _, edge in path]
        return f"{names[0]} and {names[-1]} are linked: " + "; then ".join(facts) + "."

    def _name(self, entity_id: str) -> str:
        entity = self._graph.entity(entity_id)
        return entity.name if entity else entity_id
