"""The graph changes retrieval: "my sister" resolves to Jo, and a memory about Jo gets the graph bonus.

The ranking is done by the real memory scorer (memory/scoring.py) over BM25 relevance, as retrieval does;
the only difference between the two runs is the `graph_bonus` the caller computes from the knowledge graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from core.ports import ExtractedFact
from core.turn_context import with_entity_names
from knowledge.entities import EntityResolver
from knowledge.expansion import graph_bonus
from knowledge.graph import KnowledgeGraph
from knowledge.graph_store import GraphStore
from knowledge.service import KnowledgeService
from memory.bm25 import BM25Index
from memory.candidates import Candidate, GatedCandidate, QueryContext
from memory.embeddings import HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.scoring import score
from memory.service import MemoryService
from memory.vector_store import Metadata, Record
from tests.unit.memory.profile_helpers import committed_profiles

NOW = 1_700_000_000.0
MEMORIES = {
    "party": "Ordered a birthday cake for the office party.",
    "jo": "Jo wants her birthday dinner at the Thai place again.",
    "trip": "We booked the train to Boston for the long weekend.",
    "cake": "The cake recipe needs more butter than I thought.",
}
QUERY = "When is my sister's birthday?"


def rank(bonus: Mapping[str, float]) -> list[str]:
    index = BM25Index()
    index.add_many(MEMORIES.items())
    raw = index.score_map(QUERY)
    top = max(raw.values()) or 1.0
    gated = []
    for memory_id, text in MEMORIES.items():
        relevance = raw.get(memory_id, 0.0) / top
        meta = {"created_at": NOW - 86400.0}
        candidate = Candidate(
            memory_id, "conversations", text, meta, dense=0.0, lexical=raw.get(memory_id, 0.0)
        )
        gated.append(GatedCandidate(candidate, relevance, {"lexical": relevance}))
    ctx = QueryContext(query=QUERY, now=NOW, intent="factual_recall", graph_bonus=dict(bonus))
    return [result.id for result in score(gated, ctx, committed_profiles().get("factual_recall"))]


def test_the_graph_bonus_lifts_the_memory_about_the_resolved_entity(personal_graph: KnowledgeGraph) -> None:
    seeds = EntityResolver(personal_graph).resolve_ids(QUERY)
    assert seeds == ["jo"]  # "my sister's" -> Jo, through the possessive alias
    bonus = graph_bonus(personal_graph, seeds, MEMORIES)
    assert bonus["jo"] == 1.0 and 0.0 < bonus["trip"] < 1.0  # Boston is Jo's city: a smaller lift
    assert "party" not in bonus and "cake" not in bonus

    without = rank({})
    with_graph = rank(bonus)
    assert without[0] == "party"  # lexically, the office birthday wins
    assert with_graph[0] == "jo"  # with the graph, the sister's birthday does
    assert with_graph.index("trip") <= without.index("trip")


async def test_resolving_my_sister_finds_and_lifts_the_memories_naming_her(tmp_path: Path) -> None:
    """Through the real services: the graph turns "my sister" into Jo for retrieval and boosts Jo's turns."""
    knowledge = KnowledgeService(GraphStore(tmp_path / "kg.json"))
    facts = [("my sister", "is named", "Jo"), ("Jo", "lives in", "Boston")]
    knowledge.learn([ExtractedFact(s, p, o, "family", "entity", "", 0.9) for s, p, o in facts], "t0", NOW)
    memory = MemoryService(InMemoryStore(HashingEmbedder(256)), committed_profiles())
    memory.open()
    texts = [
        "My friend's sister is doing a PhD in chemistry.",
        "How is the new sister project doing at work?",
        "Jo finally signed the lease on her flat in Boston.",
        "I need to renew my passport before the trip.",
    ]
    records = []
    for i, text in enumerate(texts):
        meta: Metadata = {"created_at": NOW - 3600.0 * (i + 1), "session_id": f"s{i}", "turn_id": str(i)}
        records.append(Record(f"m{i}", text, meta))
    memory.write_turns(records)
    query = "How is my sister doing?"

    async def ranked(ctx: QueryContext) -> list[str]:
        return [m.id for m in await memory.search(ctx, k=4)]

    plain = await ranked(QueryContext(query=query, now=NOW))
    graph = knowledge.context_for(query)
    enriched = QueryContext(query=with_entity_names(query, graph.entities), now=NOW, graph_boost=graph.boost)
    with_graph = await ranked(enriched)
    # Without the graph the memory about Jo shares no word with the question and comes last; with it, it
    # climbs above the memories that merely share the word "sister".
    assert plain[-1] == "m2"
    assert with_graph.index("m2") < min(with_graph.index("m0"), with_graph.index("m1"))
