"""Graph context for a turn: depth-2 expansion, prompt sentences and a memory-scoring bonus.

`expand` walks current edges both ways from the resolved (seed) entities, never through the user node
(everything connects to the user) nor through junk nodes (stopword-like or generic names, durations,
very-high-degree hubs). Each reached node is ranked by lateral connectivity: the strength of its links to the
seeds, plus half the strength of its links to the other reached nodes; an edge's strength is its truth times
a weight factor in [1, 2). So a node tied to two seeds outranks one tied to one, and a 2-hop node earns its
place only through several links. `graph_sentences` renders the strongest edges around the seeds as short
prompt sentences; `graph_bonus` gives memories that mention seed or expanded entities a bonus in [0, 1].
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from core.relations import ROLES, USER_ID, normalize
from knowledge.entities import STOPWORDS, EntityResolver
from knowledge.graph import Edge, KnowledgeGraph

_GENERIC_TEXT = """thing things stuff something anything everything nothing someone anyone everyone people
person time times day days week weeks month months year years today tomorrow yesterday life world work home
place places way ways lot lots issue issues problem problems idea ideas question questions"""
GENERIC_NAMES = frozenset(_GENERIC_TEXT.split())
_MEASURE = re.compile(
    r"^(?:\d|every\b|each\b|per\b)|\b(?:second|minute|hour|day|week|month|year|km|kg|lb|mile)s?$", re.I
)
_LATERAL = 0.5  # links to other reached nodes count half as much as links to a seed
_EXPANDED_BONUS = 0.5  # a memory mentioning the best expanded entity gets this bonus; a seed gets 1

_TEMPLATES: Mapping[str, str] = MappingProxyType(
    {
        "lives_in": "{s} lives in {o}.",
        "works_at": "{s} works at {o}.",
        "works_on": "{s} works on {o}.",
        "studies_at": "{s} studies at {o}.",
        "born_in": "{s} was born in {o}.",
        "likes": "{s} likes {o}.",
        "dislikes": "{s} dislikes {o}.",
        "owns": "{s} owns {o}.",
        "has_pet": "{s} has a pet named {o}.",
        "is_a": "{s} is {a} {o}.",
        "named": "{s} is named {o}.",
        "part_of": "{s} is part of {o}.",
        "speaks": "{s} speaks {o}.",
        "interested_in": "{s} is interested in {o}.",
        "skilled_at": "{s} is skilled at {o}.",
        "wants": "{s} wants {o}.",
        "created": "{s} created {o}.",
        "knows": "{s} knows {o}.",
    }
)


@dataclass(frozen=True)
class Expanded:
    """A node reached from the seeds: its score, distance, and how many seeds / other nodes it links to."""

    entity_id: str
    name: str
    score: float
    hops: int
    seed_links: int
    lateral_links: int


def is_junk(graph: KnowledgeGraph, entity_id: str, *, hub_degree: int = 40) -> bool:
    """True for nodes that make poor context: generic or stopword names, durations, measures, long
    phrases, and hubs linked to more than `hub_degree` distinct neighbours."""
    entity = graph.entity(entity_id)
    if entity is None:
        return True
    name = normalize(entity.name)
    if len(name) < 2 or name in STOPWORDS or name in GENERIC_NAMES or name.count(" ") >= 4:
        return True
    if _MEASURE.search(name):
        return True
    return len(graph.neighbors(entity_id)) > hub_degree


def _strength(edge: Edge) -> float:
    weight = max(edge.weight, 0.0)
    return max(0.0, min(1.0, edge.truth)) * 2.0 * weight / (weight + 1.0)


def _reach(
    graph: KnowledgeGraph, seeds: Sequence[str], depth: int, include_superseded: bool, hub_degree: int
) -> dict[str, int]:
    """Hop distance of every node reachable from the seeds without entering the user or junk nodes."""
    hops = {seed: 0 for seed in seeds}
    frontier = list(seeds)
    junk: dict[str, bool] = {}
    for level in range(1, depth + 1):
        nxt: list[str] = []
        for node in frontier:
            for other in sorted(graph.neighbors(node, include_superseded=include_superseded)):
                if other in hops or other == USER_ID:
                    continue
                if other not in junk:
                    junk[other] = is_junk(graph, other, hub_degree=hub_degree)
                if not junk[other]:
                    hops[other] = level
                    nxt.append(other)
        frontier = nxt
    return hops


def expand(
    graph: KnowledgeGraph,
    seeds: Iterable[str],
    *,
    depth: int = 2,
    limit: int = 20,
    include_superseded: bool = False,
    hub_degree: int = 40,
) -> list[Expanded]:
    """Nodes within `depth` hops of the seeds, best first by lateral connectivity (see module doc)."""
    seed_list = [s for s in dict.fromkeys(seeds) if s in graph]
    hops = _reach(graph, seed_list, depth, include_superseded, hub_degree)
    seed_set = set(seed_list)
    out: list[Expanded] = []
    for node, hop in hops.items():
        if node in seed_set:
            continue
        score, seed_links, lateral = _connectivity(graph, node, hops, seed_set, include_superseded)
        entity = graph.entity(node)
        out.append(Expanded(node, entity.name if entity else node, round(score, 6), hop, seed_links, lateral))
    out.sort(key=lambda e: (-e.score, e.hops, e.name.lower()))
    return out[:limit]


def _connectivity(
    graph: KnowledgeGraph, node: str, reached: Mapping[str, int], seeds: set[str], include_superseded: bool
) -> tuple[float, int, int]:
    """(score, seeds linked, other reached nodes linked) for one reached node."""
    per_neighbour: dict[str, list[float]] = {}
    for edge in graph.edges_of(node, include_superseded=include_superseded):
        other = edge.target if edge.source == node else edge.source
        if other in reached and other != node:
            per_neighbour.setdefault(other, []).append(_strength(edge))
    score, seed_links, lateral = 0.0, 0, 0
    for other, strengths in per_neighbour.items():
        strengths.sort(reverse=True)
        link = strengths[0] + 0.2 * sum(strengths[1:])  # more relations to the same node add a little
        if other in seeds:
            score, seed_links = score + link, seed_links + 1
        else:
            score, lateral = score + _LATERAL * link, lateral + 1
    return score, seed_links, lateral


def expansion_terms(graph: KnowledgeGraph, seeds: Iterable[str], *, limit: int = 8) -> list[str]:
    """Display names of the best expanded nodes, to widen a retrieval query ("Jo" -> "Boston", "Pepper")."""
    return [e.name for e in expand(graph, seeds, limit=limit)]


def _display(graph: KnowledgeGraph, entity_id: str) -> str:
    if entity_id == USER_ID:
        return "the user"
    entity = graph.entity(entity_id)
    return entity.name if entity else entity_id


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") and not name.endswith("'s") else f"{name}'s"


def render_edge(graph: KnowledgeGraph, edge: Edge) -> str:
    """One short sentence for an edge: "Jo is the user's sister.", "Pepper is a dog."."""
    s, o = _display(graph, edge.source), _display(graph, edge.target)
    if edge.relation in ROLES:
        text = f"{s} is {_possessive(o)} {ROLES[edge.relation][0]}."
    else:
        template = _TEMPLATES.get(edge.relation, "{s} " + edge.relation.replace("_", " ") + " {o}.")
        article = "an" if o[:1].lower() in "aeiou" else "a"
        text = template.format(s=s, o=o, a=article)
    if edge.superseded:
        text = f"{text[:-1]} (no longer current)."
    return text[:1].upper() + text[1:]


def graph_sentences(
    graph: KnowledgeGraph,
    seeds: Iterable[str],
    max_sentences: int = 12,
    *,
    expanded: Sequence[Expanded] | None = None,
    include_superseded: bool = False,
) -> list[str]:
    """Prompt sentences for the strongest facts around the seeds: their edges (to each other, to the user,
    to the best expanded nodes), then the seeds' attributes ("Jo's birthday is March 3.")."""
    seed_list = [s for s in dict.fromkeys(seeds) if s in graph]
    if not seed_list or max_sentences <= 0:
        return []
    if expanded is None:
        expanded = expand(graph, seed_list, include_superseded=include_superseded)
    top = max((e.score for e in expanded), default=0.0) or 1.0
    rank = {e.entity_id: 0.5 * e.score / top for e in expanded}
    rank.update({seed: 1.0 for seed in seed_list})
    rank.setdefault(USER_ID, 0.5)
    scored = _edge_sentences(graph, seed_list, expanded, rank, include_superseded)
    for seed in seed_list:
        for sentence in _attribute_sentences(graph, seed):
            scored.setdefault(sentence, 0.9)
    ordered = sorted(scored.items(), key=lambda item: -item[1])
    return [sentence for sentence, _ in ordered[:max_sentences]]


def _edge_sentences(
    graph: KnowledgeGraph,
    seeds: Sequence[str],
    expanded: Sequence[Expanded],
    rank: Mapping[str, float],
    include_superseded: bool,
) -> dict[str, float]:
    """Sentence -> rank for edges among the seeds and expanded nodes, and between a seed and the user."""
    seed_set = set(seeds)
    scored: dict[str, float] = {}
    for node in [*seeds, *(e.entity_id for e in expanded)]:
        for edge in graph.edges_of(node, include_superseded=include_superseded):
            ends = (edge.source, edge.target)
            if USER_ID in ends:
                keep = bool(seed_set.intersection(ends))
            else:
                keep = edge.source in rank and edge.target in rank
            if not keep:
                continue
            # An edge of a seed with the user may lead to a node nobody ranked (the user as the seed).
            ends_rank = rank.get(edge.source, 0.25) + rank.get(edge.target, 0.25)
            value = ends_rank * (0.5 + 0.25 * _strength(edge))
            if edge.superseded:
                value *= 0.5
            sentence = render_edge(graph, edge)
            scored[sentence] = max(scored.get(sentence, 0.0), value)
    return scored


def _attribute_sentences(graph: KnowledgeGraph, entity_id: str) -> list[str]:
    entity = graph.entity(entity_id)
    if entity is None:
        return []
    owner = _possessive(_display(graph, entity_id))
    out = []
    for key, value in entity.attributes.items():
        if isinstance(value, str | int | float) and not isinstance(value, bool) and str(value).strip():
            text = f"{owner} {key.replace('_', ' ')} is {value}."
            out.append(text[:1].upper() + text[1:])
    return out


def graph_bonus(
    graph: KnowledgeGraph,
    entity_ids: Iterable[str],
    texts: Mapping[str, str],
    *,
    expanded: Sequence[Expanded] | None = None,
    resolver: EntityResolver | None = None,
) -> dict[str, float]:
    """Memory id -> bonus in [0, 1] for memories that mention the query's entities or their expansion.

    A mention of a seed entity counts 1, of an expanded entity up to 0.5 (scaled by its rank); several
    mentions combine as independent evidence. Memories mentioning none are absent from the result. The
    user node gives no bonus: every memory is about the user.
    """
    seeds = [s for s in dict.fromkeys(entity_ids) if s in graph and s != USER_ID]
    if not seeds or not texts:
        return {}
    if expanded is None:
        expanded = expand(graph, seeds)
    top = max((e.score for e in expanded), default=0.0) or 1.0
    value = {e.entity_id: _EXPANDED_BONUS * e.score / top for e in expanded if e.score > 0}
    value.update({seed: 1.0 for seed in seeds})
    resolver = resolver or EntityResolver(graph)
    out: dict[str, float] = {}
    for memory_id, text in texts.items():
        miss = 1.0
        for eid in resolver.resolve_ids(text or "", only=value.keys()):
            miss *= 1.0 - value[eid]
        if miss < 1.0:
            out[memory_id] = round(min(1.0, max(0.0, 1.0 - miss)), 6)
    return out
