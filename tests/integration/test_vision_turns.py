"""Images reach a vision model with the turn: the ones the user attached and the ones the message recalls
from visual memory, downscaled and capped, as the vendor's image parts on the wire (the real `openai` SDK
against a local fake server, through the real orchestrator and agent loop). A model without vision gets the
text only, and a message that asks to see nothing sends no image."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from core.agent.loop import AgentRunner
from core.orchestrator import ModelChoice, Orchestrator
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.providers.openai_compat import OpenAICompatProvider
from core.turn_context import ContextGatherer, JournalHistory, TurnContext
from core.turn_images import turn_images, with_images
from core.types import ImageData, Message
from memory.journal import Journal
from memory.visual.attach import TurnImages, shrink
from memory.visual.retrieval import ImageRecall
from memory.visual.store import VisualMemory
from tests.contract.fake_servers import FakeOpenAIServer, FakeServer, reply
from tests.unit.memory.visual_helpers import close, draw, open_visual


@pytest.fixture
def openai_server() -> Iterator[FakeServer]:
    server = FakeOpenAIServer().start()
    yield server
    server.stop()


@pytest.fixture
def album(tmp_path: Path) -> Iterator[VisualMemory]:
    visual = open_visual(tmp_path / "data")
    visual.add(draw(tmp_path / "beach.png", (250, 210, 60), size=(1600, 1200)), caption="Jo at the beach")
    yield visual
    close(visual)


def images_of(visual: VisualMemory, *, max_images: int = 2, max_side: int = 256) -> TurnImages:
    return TurnImages(visual, ImageRecall(visual), max_images=max_images, max_side=max_side, max_kb=200)


def orchestrator(tmp_path: Path, server: FakeServer, model: str, source: TurnImages) -> Orchestrator:
    vision = model.startswith("gpt-4o")
    provider = OpenAICompatProvider(model=model, api_key="k", base_url=server.base_url + "/v1", vision=vision)
    journal = Journal(tmp_path / "journal.sqlite3")
    gather = ContextGatherer(JournalHistory(journal, 4))
    prompt = PromptBuilder("SYSTEM", EstimateCounter(), 8000)
    return Orchestrator([ModelChoice(model, AgentRunner(provider))], journal, gather, prompt, images=source)


def image_urls(server: FakeServer) -> list[str]:
    user = server.requests[-1].body["messages"][-1]
    content = user["content"]
    if isinstance(content, str):
        return []
    return [part["image_url"]["url"] for part in content if part["type"] == "image_url"]


async def run(orch: Orchestrator, text: str, images: tuple[ImageData, ...] = ()) -> None:
    async for _ in orch.run_turn(text, images=images):
        pass


async def test_a_recalled_photo_goes_to_a_vision_model_downscaled(
    tmp_path: Path, album: VisualMemory, openai_server: FakeServer
) -> None:
    openai_server.script(reply("Jo is on a sunny beach."))
    await run(
        orchestrator(tmp_path, openai_server, "gpt-4o", images_of(album)), "show me the photo of the beach"
    )
    urls = image_urls(openai_server)
    assert len(urls) == 1 and urls[0].startswith("data:image/jpeg;base64,")
    sent = Image.open(io.BytesIO(base64.b64decode(urls[0].split(",", 1)[1])))
    assert max(sent.size) == 256  # the 1600x1200 original, shrunk to visual.attach_max_side


async def test_attached_images_are_the_turns_images_and_the_count_is_capped(
    tmp_path: Path, album: VisualMemory, openai_server: FakeServer
) -> None:
    openai_server.script(reply("Two photos."))
    source = images_of(album, max_images=2)
    attached = tuple(source.load(draw(tmp_path / f"a{i}.png", (10 * i, 90, 200)), f"a{i}") for i in range(3))
    await run(orchestrator(tmp_path, openai_server, "gpt-4o", source), "what is in these pictures?", attached)
    urls = image_urls(openai_server)
    expected = [f"data:image/jpeg;base64,{base64.b64encode(i.data).decode()}" for i in attached[:2]]
    assert urls == expected  # the user's first two; no recalled one beside what the user is asking about


async def test_a_model_without_vision_never_gets_image_bytes(
    tmp_path: Path, album: VisualMemory, openai_server: FakeServer
) -> None:
    openai_server.script(reply("I only read the caption."))
    source = images_of(album)
    attached = (source.load(draw(tmp_path / "mine.png", (1, 2, 3)), "mine"),)
    await run(
        orchestrator(tmp_path, openai_server, "gpt-3.5-turbo", source), "show me the beach photo", attached
    )
    body = json.dumps(openai_server.requests[-1].body)
    assert image_urls(openai_server) == [] and "base64" not in body


async def test_a_message_that_asks_to_see_nothing_sends_no_image(
    tmp_path: Path, album: VisualMemory, openai_server: FakeServer
) -> None:
    openai_server.script(reply("Hello."))
    await run(orchestrator(tmp_path, openai_server, "gpt-4o", images_of(album)), "how was the beach trip?")
    assert image_urls(openai_server) == []


def test_a_big_image_is_shrunk_until_it_fits_the_size_cap(tmp_path: Path, album: VisualMemory) -> None:
    noisy = tmp_path / "noise.png"
    Image.effect_noise((1500, 1500), 120).convert("RGB").save(noisy)
    image = shrink(noisy, album, max_side=1024, max_kb=40)
    assert len(image.data) <= 40 * 1024 and image.media_type == "image/jpeg"


async def test_images_go_on_the_turns_own_user_message() -> None:
    image = ImageData(b"x", "image/png")
    messages = [
        Message("system", "S"),
        Message("user", "old"),
        Message("assistant", "a"),
        Message("user", "new"),
    ]
    out = with_images(messages, [image])
    assert out[-1].images == (image,) and out[1].images == ()
    assert await turn_images(None, TurnContext("hi"), [image]) == [image]
