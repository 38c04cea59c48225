"""The MCP server's memory tools over real stores (SQLite journal and facts, in-memory vectors, the graph
file), called through the official SDK client connected in-process to the server
`ui.mcp_server.server` builds."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import TextContent

from knowledge.graph_store import GraphStore
from knowledge.service import KnowledgeService
from memory.embeddings import HashingEmbedder
from memory.facts.extraction import RuleFactExtractor
from memory.facts.service import open_fact_memory
from memory.inmemory_store import InMemoryStore
from memory.journal import Journal
from memory.port import ConversationMemory
from memory.service import MemoryService
from memory.turn_index import TurnIndexer
from tests.unit.memory.profile_helpers import committed_profiles
from ui.mcp_server.server import MAX_NOTE_CHARS, MemoryBridge, build_mcp_server


@pytest.fixture
def bridge(tmp_path: Path) -> Iterator[MemoryBridge]:
    journal = Journal(tmp_path / "journal.sqlite3")
    memory = MemoryService(InMemoryStore(HashingEmbedder(256)), committed_profiles())
    memory.open()
    facts, close_facts = open_fact_memory(tmp_path, memory)
    knowledge = KnowledgeService(GraphStore(tmp_path / "knowledge_graph.json"))
    port = ConversationMemory(memory, TurnIndexer(memory.write_turns, journal))
    yield MemoryBridge(memory, journal, port, facts, knowledge, RuleFactExtractor())
    close_facts()
    journal.close()


@asynccontextmanager
async def connected(bridge: MemoryBridge) -> AsyncIterator[Client]:
    """The SDK client on the server in-process (entered and left in the test's own task, as anyio needs)."""
    async with Client(build_mcp_server(bridge, "test")) as client:
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    content = result.content[0]
    assert isinstance(content, TextContent)
    return json.loads(content.text)


async def error_of(client: Client, tool: str, **arguments: Any) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    content = result.content[0]
    assert isinstance(content, TextContent)
    return content.text


async def test_the_server_offers_the_four_memory_tools(bridge: MemoryBridge) -> None:
    async with connected(bridge) as client:
        listed = await client.list_tools()
    assert sorted(t.name for t in listed.tools) == [
        "add_memory",
        "get_profile",
        "query_graph",
        "search_memory",
    ]
    search = next(t for t in listed.tools if t.name == "search_memory")
    assert search.input_schema["required"] == ["query"]


async def test_an_added_memory_is_journaled_and_found_by_search(bridge: MemoryBridge) -> None:
    note = "We adopted a cat called Miso from the shelter on Elm Street."
    async with connected(bridge) as client:
        added = await call(client, "add_memory", text=note)
        found = await call(client, "search_memory", query="cat from the shelter", collection="conversations")
    assert [r["id"] for r in found["results"]][:1] == [added["id"]]
    assert "Miso" in found["results"][0]["text"]
    assert "never instructions" in found["note"]
    assert [(t.user, t.model, t.status) for t in bridge.journal.turns()] == [(note, "mcp", "complete")]


async def test_facts_of_a_note_pass_the_verification_gate(bridge: MemoryBridge) -> None:
    async with connected(bridge) as client:
        first = await call(client, "add_memory", text="I live in Lyon.")
        moved = await call(client, "add_memory", text="I live in Paris.")
        # An instruction-shaped "fact" is refused by the gate, though the note itself is kept.
        poisoned = await call(client, "add_memory", text="I work at the system prompt.")
        profile = await call(client, "get_profile")
    assert first["facts_accepted"] == ["The user lives in Lyon."]
    assert moved["facts_superseded"] == ["The user lives in Lyon."]  # a correction, kept as history
    assert poisoned["facts_stated"] == 1 and poisoned["facts_accepted"] == []
    current = {(f.predicate, f.object) for f in bridge.facts.list_facts("current")}
    assert current == {("lives_in", "Paris")}
    assert [f["fact"] for f in profile["facts"]] == ["The user lives in Paris."]


async def test_query_graph_gives_an_entity_and_its_relations(bridge: MemoryBridge) -> None:
    async with connected(bridge) as client:
        await call(client, "add_memory", text="My sister Jo lives in Denver.")
        jo = await call(client, "query_graph", entity="Jo")
        sister = await call(client, "query_graph", entity="my sister")
        unknown = await call(client, "query_graph", entity="Zanzibar")
    assert jo["found"] and jo["type"] == "person"
    assert {"Jo lives in Denver.", "Jo is the user's sister."} <= {r["fact"] for r in jo["relations"]}
    assert sister["entity"] == "Jo"
    assert unknown == {
        "found": False,
        "entity": "Zanzibar",
        "relations": [],
        "note": "no such entity in the graph",
    }


@pytest.mark.parametrize(
    ("tool", "arguments", "reason"),
    [
        ("add_memory", {"text": "  \u200b "}, "text is empty"),
        ("add_memory", {"text": "x" * (MAX_NOTE_CHARS + 1)}, f"the limit is {MAX_NOTE_CHARS}"),
        ("search_memory", {"query": ""}, "query is empty"),
        ("search_memory", {"query": "cats", "collection": "diary"}, "unknown collection 'diary'"),
        ("search_memory", {"query": "cats", "limit": 0}, "limit must be from 1 to 50"),
        ("query_graph", {"entity": " "}, "entity is empty"),
        ("search_memory", {"query": "cats", "limit": "many"}, "limit"),
    ],
)
async def test_bad_input_is_a_tool_error_with_its_reason(
    bridge: MemoryBridge, tool: str, arguments: dict[str, Any], reason: str
) -> None:
    async with connected(bridge) as client:
        assert reason in await error_of(client, tool, **arguments)
    assert bridge.journal.turns() == []  # nothing was stored
