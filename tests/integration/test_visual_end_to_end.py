"""Visual memory end to end: tags resolved through a real knowledge graph, retrieval by entity and by
caption through the `recall_image` tool, captions from a vision model on a local fake OpenAI server, real
OpenCLIP (random weights, loaded once), and a process killed between the FAISS and the Chroma write."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config import load_config
from core.config_tools import GitStatsConfig
from core.errors import ConfigError
from core.providers.vision_caption import build_captioner
from core.tools.base import Tool
from core.tools.store_tools import store_tools
from knowledge.graph import KnowledgeGraph
from knowledge.graph_facts import ingest_triples
from knowledge.visual_entities import GraphEntities
from memory.browse import MemoryReader
from memory.visual.encoder import ClipEncoder
from memory.visual.retrieval import NO_CLIP, ImageRecall
from memory.visual.store import VisualMemory
from tests.contract.fake_servers import FakeAnthropicServer, FakeOpenAIServer, reply
from tests.unit.memory.visual_helpers import close, consistent, draw, open_visual

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def graph() -> KnowledgeGraph:
    """The user's sister Jo and friend Sam."""
    made = KnowledgeGraph(lambda: 1_700_000_000.0)
    ingest_triples(
        made,
        [
            ("my sister", "is named", "Jo", 0.9, "f1", 1_699_999_000.0),
            ("user", "has a friend named", "Sam", 0.9, "f2", 1_699_999_000.0),
        ],
    )
    return made


@pytest.fixture
def album(tmp_path: Path, graph: KnowledgeGraph) -> Iterator[VisualMemory]:
    """Three generated photos: Jo at the beach (tagged "my sister"), Sam by a lake, a red bicycle."""
    visual = open_visual(tmp_path / "data", entities=GraphEntities(graph))
    visual.add(draw(tmp_path / "IMG_0001.png", (250, 210, 60), "ellipse"), tags="my sister, beach")
    visual.add(draw(tmp_path / "IMG_0002.png", (40, 90, 220), "rectangle"), caption="Sam fishing by the lake")
    visual.add(
        draw(tmp_path / "IMG_0003.png", (220, 20, 20), "triangle"), caption="a red bicycle in the garage"
    )
    yield visual
    close(visual)


async def test_a_tag_naming_my_sister_is_stored_as_jo(album: VisualMemory) -> None:
    tagged = [i for i in album.images() if i.entity_ids]
    by_id = {i.entity_ids: i for i in tagged}
    assert set(by_id) == {("jo",), ("sam",)}  # Sam comes from the caption
    assert "Shows: Jo." in by_id[("jo",)].text and "beach" in by_id[("jo",)].tags


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("show me a photo of my sister", "Shows: Jo."),
        ("the picture of Jo that Sam sent me", "Shows: Jo."),  # Jo is nearest the visual word
        ("what did Sam look like at the lake", "Sam fishing"),
    ],
)
async def test_images_are_found_by_the_entity_the_question_names(
    album: VisualMemory, question: str, expected: str
) -> None:
    found = await ImageRecall(album).find_images(question, 3)
    assert expected in found.entries[0].text
    assert "tagged with" in found.how and NO_CLIP in found.how


async def test_without_an_entity_images_are_found_by_their_caption(album: VisualMemory) -> None:
    found = await ImageRecall(album).find_images("bicycle in the garage", 2)
    assert "red bicycle" in found.entries[0].text
    assert found.how == NO_CLIP


async def test_recall_image_reads_visual_memory_and_says_how(album: VisualMemory) -> None:
    reader = MemoryReader(album.memory)
    tools = store_tools(
        reader, None, GitStatsConfig(timeout_s=5, max_output_chars=1000), [], images=ImageRecall(album)
    )
    tool = next(t for t in tools if t.name == "recall_image")
    assert isinstance(tool, Tool)  # available, not an UnavailableTool

    output = await tool.fn(query="a picture of my sister", limit=1)

    assert "IMG_0001.png" in output and "Shows: Jo." in output
    assert "no CLIP weights configured" in output


def test_a_vision_model_captions_an_image_added_without_one(
    tmp_path: Path, graph: KnowledgeGraph, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = FakeOpenAIServer().script(reply("Jo laughing on a sunny beach with a yellow ball.")).start()
    try:
        overrides = {
            "providers.eyes": {"kind": "openai", "model": "llava", "base_url": server.base_url + "/v1"},
            "models.vision": "eyes",
        }
        captioner = build_captioner(load_config(overrides=overrides), {})
        visual = open_visual(tmp_path / "data", entities=GraphEntities(graph), captioner=captioner)
        try:
            stored = visual.add(draw(tmp_path / "IMG_7.png", (250, 220, 0))).image
        finally:
            close(visual)
    finally:
        server.stop()
    assert stored.caption_source == "vision" and stored.text.startswith("Jo laughing on a sunny beach")
    assert stored.entity_ids == ("jo",)  # the caption named her
    content = server.requests[0].body["messages"][0]["content"]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    server.assert_done()


def test_an_anthropic_vision_model_gets_the_image_as_a_base64_block(tmp_path: Path) -> None:
    server = FakeAnthropicServer().script(reply("A green triangle on white paper.")).start()
    try:
        config = load_config(overrides={"models.vision": "anthropic"})
        env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": server.base_url}
        visual = open_visual(tmp_path / "data", captioner=build_captioner(config, env))
        try:
            stored = visual.add(draw(tmp_path / "IMG_9.png", (0, 200, 0), "triangle")).image
        finally:
            close(visual)
    finally:
        server.stop()
    assert stored.caption_source == "vision" and stored.text == "A green triangle on white paper."
    image = server.requests[0].body["messages"][0]["content"][0]
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    headers = server.requests[0].headers  # this SDK sends the key as a bearer token, older ones as x-api-key
    assert "test-key" in headers.get("x-api-key", "") + headers.get("authorization", "")


def test_a_vision_provider_without_its_key_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        build_captioner(load_config(overrides={"models.vision": "anthropic"}), {})


def test_a_failing_vision_model_falls_back_to_the_file_name(tmp_path: Path) -> None:
    server = FakeOpenAIServer().start()  # no scripted answer: HTTP 500
    try:
        overrides = {
            "providers.eyes": {"kind": "openai", "model": "llava", "base_url": server.base_url + "/v1"},
            "models.vision": "eyes",
        }
        visual = open_visual(
            tmp_path / "data", captioner=build_captioner(load_config(overrides=overrides), {})
        )
        try:
            stored = visual.add(draw(tmp_path / "garden_party.png", (0, 200, 0))).image
        finally:
            close(visual)
    finally:
        server.stop()
    assert stored.caption_source == "file" and stored.text.startswith("garden party")


@pytest.fixture(scope="module")
def clip() -> ClipEncoder:
    """Real OpenCLIP ViT-B/32 with random (seeded) weights: 151M parameters, built once for the module."""
    return ClipEncoder(pretrained=None)


@pytest.mark.slow
def test_real_clip_vectors_fill_the_index_and_survive_a_restart(
    tmp_path: Path, clip: ClipEncoder, graph: KnowledgeGraph
) -> None:
    data = tmp_path / "data"
    visual = open_visual(data, encoder=clip, entities=GraphEntities(graph))
    for n, (colour, shape) in enumerate([((255, 0, 0), "ellipse"), ((0, 0, 255), "rectangle")]):
        visual.add(draw(tmp_path / f"{n}.png", colour, shape), tags="Jo" if n == 0 else "Sam")
    vectors = clip.encode_images([_preview(tmp_path / "1.png")])
    assert vectors.shape == (1, 512) and abs(float((vectors**2).sum()) - 1.0) < 1e-4
    assert visual.index is not None and visual.index.dim == 512 and len(visual.index) == 2
    close(visual)

    again = open_visual(data, encoder=clip, entities=GraphEntities(graph))
    try:
        assert consistent(again) and again.reconciled.dropped == again.reconciled.reencoded == 0
        assert not clip.ranks  # random weights: CLIP must not order anything
        assert again.clip_ranked("a red circle", 2) == []
    finally:
        close(again)


@pytest.mark.slow
async def test_with_random_clip_weights_retrieval_falls_back_to_entities_and_captions(
    tmp_path: Path, clip: ClipEncoder, graph: KnowledgeGraph
) -> None:
    visual = open_visual(tmp_path / "data", encoder=clip, entities=GraphEntities(graph))
    try:
        visual.add(draw(tmp_path / "a.png", (255, 0, 0)), caption="a red kite over the hill")
        visual.add(draw(tmp_path / "b.png", (0, 255, 0), "triangle"), tags="my sister")
        recall = ImageRecall(visual)
        by_entity = await recall.find_images("a selfie of my sister", 1)
        by_caption = await recall.find_images("kite over the hill", 1)
    finally:
        close(visual)
    assert by_entity.entries[0].metadata["image_path"].endswith("b.png")
    assert by_caption.entries[0].text.startswith("a red kite") and by_caption.how == NO_CLIP


def _preview(path: Path) -> object:
    from PIL import Image

    return Image.open(path).convert("RGB")


CRASHING_CHILD = """
import os, sys
from pathlib import Path
from tests.unit.memory.visual_helpers import draw, open_visual
data, folder = Path(sys.argv[1]), Path(sys.argv[2])
visual = open_visual(data)
visual.add(draw(folder / "kept.png", (0, 90, 0)), caption="kept")
visual.memory.add = lambda *a, **k: os._exit(9)  # the process dies after the vector, before the record
visual.add(draw(folder / "lost.png", (90, 0, 0), "triangle"), caption="lost")
"""


def test_a_process_killed_between_the_two_writes_leaves_indexes_the_next_start_repairs(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CRASHING_CHILD), str(data), str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert child.returncode == 9, child.stderr[-2000:]

    visual = open_visual(data)
    try:
        assert visual.reconciled.dropped == 1
        assert consistent(visual) and [i.text for i in visual.images()] == ["kept."]
    finally:
        close(visual)
