"""The store tools over a real memory: Chroma on disk, MiniLM embeddings, the service's search path.

One memory is built per module (MiniLM loads once): two sessions of conversation turns (one turn hidden
by the user), a summary written from three of them, a fact, and documents written through the
`reference_docs` chunk contract (memory/documents.py), chunks stored out of order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, TypedDict, Unpack

import pytest

from core.agent.tool_exec import execute_call
from core.config_tools import GitStatsConfig
from core.errors import ToolRetry
from core.tools.base import Tool
from core.tools.catalog import UnavailableTool
from core.tools.store_tools import store_tools
from core.tools.toolset import Toolset
from core.types import ToolCall
from memory.chroma_store import ChromaStore
from memory.documents import chunk_records, document_id_for
from memory.embeddings import Embedder
from memory.journal import Journal
from memory.port import ConversationMemory
from memory.service import MemoryService
from memory.turn_index import TurnIndexer
from memory.vector_store import Metadata, Record
from tests.unit.memory.profile_helpers import committed_profiles

pytestmark = pytest.mark.slow  # MiniLM loads once per module (a few seconds)

NOW = 1_767_000_000.0
GIT = GitStatsConfig(timeout_s=10.0, max_output_chars=4000)
TRIP = [
    "User: We are planning a hiking trip to the Dolomites in July.",
    "User: Which hut should we sleep in on the first night? Assistant: Rifugio Lagazuoi has a view.",
    "User: I booked Rifugio Lagazuoi for July 12.",
    "User: My boots are old, should I buy new ones? Assistant: Break new boots in before the trip.",
    "User: I bought the boots, a size 43.",
    "User: What should I pack for the via ferrata? Assistant: A harness, a helmet and a lanyard set.",
    "User: Thanks, I will rent the via ferrata set in Cortina.",
]
BUDGET = "Quarterly budget 2026.\n\nRent: 1,200 a month.\n\nGroceries: 450 a month.\n\nSavings goal: 300."
GARDEN_OLD = "Garden plan.\nTomatoes in May."
GARDEN_NEW = "Garden plan, revised.\nTomatoes in May, basil beside them, beans in June."
HIDDEN = {"conversations": {"conv_t5"}}


def _turn(i: int, text: str, session: str) -> Record:
    meta: Metadata = {
        "created_at": NOW - 10_000 + 60 * i,
        "session_id": session,
        "turn_id": f"t{i}",
        "seq": i,
    }
    return Record(f"conv_t{i}", text, meta)


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _document(title: str, text: str, path: str, created_at: float, size: int = 20) -> list[Record]:
    records = chunk_records(
        document_id_for(path), title, _chunks(text, size), source_path=path, created_at=created_at
    )
    random.Random(7).shuffle(records)  # the store gets them in no particular order
    return records


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    from memory.embeddings import MiniLMEmbedder

    return MiniLMEmbedder(threads=1)


MemoryFactory = Callable[[str], tuple[MemoryService, ConversationMemory]]


@pytest.fixture(scope="module")
def open_memory(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[MemoryFactory]:
    """`open_memory(name)`: an empty memory in its own Chroma directory; all are closed at the end."""
    opened: list[tuple[MemoryService, Journal]] = []

    def factory(name: str) -> tuple[MemoryService, ConversationMemory]:
        root = tmp_path_factory.mktemp(name)
        service = MemoryService(
            ChromaStore.embedded(root / "chroma", embedder),
            committed_profiles(),
            clock=lambda: NOW,
            hidden=lambda collection: HIDDEN.get(collection, set()),
        )
        service.open()
        journal = Journal(root / "journal.sqlite3")
        opened.append((service, journal))
        return service, ConversationMemory(
            service, TurnIndexer(service.write_turns, journal), clock=lambda: NOW
        )

    yield factory
    for service, journal in opened:
        service.close()
        journal.close()


@pytest.fixture(scope="module")
def memory(open_memory: MemoryFactory) -> ConversationMemory:
    service, port = open_memory("stores")
    turns = [_turn(i, text, "s1") for i, text in enumerate(TRIP, start=1)]
    random.Random(3).shuffle(turns)  # stored out of order: the expansion must order them by time
    service.write_turns(turns)
    service.write_turns([_turn(20, "User: My sister Jo moved to Lisbon.", "s2")])
    # not flat yet: the store validates it and keeps `source_ids` (a json field) as a JSON string
    summary: dict[str, Any] = {
        "created_at": NOW - 5000,
        "session_id": "s1",
        "source_ids": ["conv_t4", "conv_t2", "conv_t3"],
    }
    service.add(
        "summaries", [Record("sum_trip", "Booked Rifugio Lagazuoi and discussed new hiking boots.", summary)]
    )
    fact: Metadata = {"created_at": NOW - 4000, "subject": "Jo", "predicate": "lives in", "object": "Lisbon"}
    service.add("facts", [Record("fact_jo", "Jo | lives in | Lisbon", fact)])
    docs = _document("Quarterly Budget 2026", BUDGET, "/home/u/docs/budget-2026.md", NOW - 3000)
    docs += _document(
        "Budget notes 2025", "Old notes about the 2025 budget.", "/home/u/docs/b25.md", NOW - 3000
    )
    docs += _document("Garden plan", GARDEN_OLD, "/home/u/garden.md", NOW - 9000)
    docs += _document("Garden plan", GARDEN_NEW, "/home/u/garden.md", NOW - 2000)  # a newer version
    gap = [
        r
        for r in _document("Recipe box", "Pancakes: flour, milk, eggs.", "/r.md", NOW)
        if r.metadata["chunk_index"] != 1
    ]
    service.add("reference_docs", docs + gap)
    return port


class StoreToolOptions(TypedDict, total=False):
    """The keyword options of `store_tools` a test may set."""

    page_chars: int


def _tools(memory: ConversationMemory, **kw: Unpack[StoreToolOptions]) -> dict[str, Tool | UnavailableTool]:
    return {t.name: t for t in store_tools(memory, None, GIT, [], **kw)}


def _tool(memory: ConversationMemory, name: str, **kw: Unpack[StoreToolOptions]) -> Tool:
    made = _tools(memory, **kw)[name]
    assert isinstance(made, Tool), made
    return made


def _day(offset: float) -> str:
    return datetime.fromtimestamp(NOW + offset).strftime("%Y-%m-%d")


def test_the_maker_lists_every_tool_and_why_some_are_off(memory: ConversationMemory) -> None:
    made = _tools(memory)
    assert list(made) == [
        "search_memory",
        "expand_memory",
        "get_full_document",
        "recall_image",
        "git_stats",
        "done",
    ]
    image, git = made["recall_image"], made["git_stats"]
    assert isinstance(image, UnavailableTool) and image.reason == "no images in memory yet"
    assert isinstance(git, UnavailableTool) and "session.git_repos" in git.reason


async def test_search_in_one_collection_returns_ids_dates_and_the_collection(
    memory: ConversationMemory,
) -> None:
    search = _tool(memory, "search_memory")
    text = await search.fn(query="hiking boots and the hut booking", collection="summaries")
    lines = text.splitlines()[1:]
    assert lines == [
        f"- [sum_trip] {_day(-5000)}, summaries: Booked Rifugio Lagazuoi and discussed new hiking boots."
    ]


async def test_search_without_a_collection_is_the_usual_search(memory: ConversationMemory) -> None:
    text = await _tool(memory, "search_memory").fn(query="where does my sister Jo live", limit=5)
    found = [line.split("]")[0].removeprefix("- [") for line in text.splitlines()[1:]]
    assert "conv_t20" in found and "fact_jo" in found
    assert "conv_t5" not in text  # hidden by the user


async def test_an_unknown_collection_is_refused_with_the_known_names(memory: ConversationMemory) -> None:
    search = _tool(memory, "search_memory")
    outcome = await execute_call(
        ToolCall("c1", "search_memory", {"query": "x", "collection": "diaries"}), Toolset([search])
    )
    assert not outcome.ok and "visual_memories" in outcome.output
    with pytest.raises(ToolRetry, match="unknown collection 'diaries'"):
        await search.fn(query="x", collection="diaries")


async def test_expanding_a_turn_shows_its_session_in_time_order(memory: ConversationMemory) -> None:
    expand = _tool(memory, "expand_memory")
    around = await expand.fn(memory_id="conv_t4", direction="around", count=2)
    ids = [line.split("]")[0].removeprefix("- [") for line in around.splitlines()[1:]]
    assert ids == ["conv_t2", "conv_t3", "conv_t4", "conv_t6", "conv_t7"]  # t5 is hidden; s2 is not here
    assert "1 earlier not shown" in around.splitlines()[0]
    assert "[conv_t4]" in around and "<- this one" in around.splitlines()[3]
    before = await expand.fn(memory_id="conv_t3", direction="before", count=5)
    assert [line.split("]")[0][3:] for line in before.splitlines()[1:]] == ["conv_t1", "conv_t2", "conv_t3"]
    after = await expand.fn(memory_id="conv_t6", direction="after", count=1)
    assert [line.split("]")[0][3:] for line in after.splitlines()[1:]] == ["conv_t6", "conv_t7"]


async def test_expanding_a_summary_drills_down_to_its_source_turns(memory: ConversationMemory) -> None:
    text = await _tool(memory, "expand_memory").fn(memory_id="sum_trip", count=3)
    assert text.splitlines()[0].startswith("The turns sum_trip (summaries) was written from")
    ids = [line.split("]")[0][3:] for line in text.splitlines()[1:]]
    assert ids == ["conv_t2", "conv_t3", "conv_t4"]  # in time order, not in the order they were listed


async def test_expanding_a_fact_or_an_unknown_id(memory: ConversationMemory) -> None:
    expand = _tool(memory, "expand_memory")
    assert "has no conversation around it" in await expand.fn(memory_id="fact_jo")
    with pytest.raises(ToolRetry, match="no memory has the id"):
        await expand.fn(memory_id="conv_nothing")
    with pytest.raises(ToolRetry):
        await expand.fn(memory_id="conv_t5")  # hidden records stay hidden


async def test_a_document_is_reassembled_in_chunk_order(memory: ConversationMemory) -> None:
    text = await _tool(memory, "get_full_document").fn(title="Quarterly Budget 2026")
    header, body = text.split(":\n", 1)
    assert body == BUDGET
    assert header.startswith('Document "Quarterly Budget 2026"') and "part 1 of 1" in header


async def test_a_close_title_finds_the_document(memory: ConversationMemory) -> None:
    read = _tool(memory, "get_full_document").fn
    assert (await read(title="quarterly budjet")).endswith(BUDGET)
    assert (await read(title="budget-2026")).endswith(BUDGET)  # the file name works too


async def test_an_ambiguous_title_asks_which_one(memory: ConversationMemory) -> None:
    text = await _tool(memory, "get_full_document").fn(title="budget")
    assert text.startswith("Several documents could be meant by 'budget'. Did you mean:")
    assert '"Quarterly Budget 2026"' in text and '"Budget notes 2025"' in text


async def test_no_document_with_that_title(memory: ConversationMemory) -> None:
    text = await _tool(memory, "get_full_document").fn(title="tax return")
    assert text == "No document titled 'tax return' is stored (4 documents in memory)."


async def test_the_newest_version_is_read_and_a_missing_chunk_is_named(memory: ConversationMemory) -> None:
    read = _tool(memory, "get_full_document").fn
    assert (await read(title="garden plan")).endswith(GARDEN_NEW)
    gap = await read(title="Recipe box")
    assert "chunks 1 are missing from the store" in gap.split(":\n", 1)[0]


async def test_a_long_document_comes_in_bounded_parts(memory: ConversationMemory) -> None:
    read = _tool(memory, "get_full_document", page_chars=30).fn
    parts = [await read(title="Quarterly Budget 2026", part=n) for n in (1, 2, 3)]
    assert all("of 3" in p.split(":\n", 1)[0] for p in parts)
    assert parts[0].endswith("[Call get_full_document again with part=2 for the rest.]")
    bodies = [p.split(":\n", 1)[1].split("\n[Call")[0] for p in parts]
    assert "".join(bodies) == BUDGET and max(len(b) for b in bodies) <= 30
    with pytest.raises(ToolRetry, match="between 1 and 3"):
        await read(title="Quarterly Budget 2026", part=4)


async def test_recall_image_finds_path_caption_and_date(open_memory: MemoryFactory) -> None:
    service, port = open_memory("images")
    sunset: Metadata = {
        "created_at": NOW - 86_400,
        "image_hash": "h1",
        "image_path": "/photos/lisbon/IMG_0042.jpg",
        "media_type": "image/jpeg",
        "width": 4032,
        "height": 3024,
    }
    scan: Metadata = {
        "created_at": NOW - 50,
        "image_hash": "h2",
        "image_path": "/scans/passport_scan.png",
        "media_type": "image/png",
    }
    service.add(
        "visual_memories",
        [
            Record("img_sunset", "Sunset over the beach with two surfers in the water", sunset),
            Record("img_scan", "A small booklet lying on a wooden table", scan),
        ],
    )
    recall = _tool(port, "recall_image")
    text = await recall.fn(query="surfers at sunset", limit=1)
    assert text.splitlines()[1] == (
        f"- /photos/lisbon/IMG_0042.jpg ({_day(-86_400)}, image/jpeg, 4032x3024) [img_sunset]: "
        "Sunset over the beach with two surfers in the water"
    )
    by_name = await recall.fn(query="passport")  # only the file name says so
    assert "/scans/passport_scan.png" in by_name
