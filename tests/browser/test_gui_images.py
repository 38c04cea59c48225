"""The Images tab and the message box's attachments in a real browser (Debian chromium via Playwright).

The back end is the browser tests' whole stack (tests/browser/gui_stack.py) plus visual memory over its
memory service with the real OpenCLIP encoder at random init (no weights download) and a FAISS index in the
data dir; the orchestrator gets the image source the composition root gives it, and its scripted model records
the images each turn's user message carried.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.events import RunEvent
from core.orchestrator import Orchestrator
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import ContextGatherer, JournalHistory
from core.types import ImageData, Message
from memory.port import ConversationMemory
from memory.turn_index import TurnIndexer
from memory.visual.attach import TurnImages
from memory.visual.encoder import ClipEncoder
from memory.visual.index import FaissImageIndex
from memory.visual.retrieval import ImageRecall
from memory.visual.store import VisualMemory
from tests.browser.gui_page import Gui, free_port, open_page, send, tab, uploads_inside
from tests.browser.gui_stack import CitingAgent, build_stack, scripted_choice
from tests.unit.memory.visual_helpers import LIMITS, draw
from ui.gui.images_tab import ImageDesk

pytestmark = [pytest.mark.browser, pytest.mark.slow]


class SeeingAgent(CitingAgent):
    """The stack's citing echo, noting the images each turn's user message carried."""

    seen: list[tuple[ImageData, ...]] = []  # noqa: RUF012 - one list per test module, read by the tests

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        SeeingAgent.seen.append(messages[-1].images)
        async for event in super().run(messages, cancel=cancel, max_tokens=max_tokens):
            yield event


@pytest.fixture(scope="module")
def gui(tmp_path_factory: pytest.TempPathFactory, chromium_path: Path) -> Iterator[Gui]:
    from ui.gui.app import build_app, launch

    data = tmp_path_factory.mktemp("gui-images")
    restore_uploads = uploads_inside(data)
    stack = build_stack(data)
    encoder = ClipEncoder(pretrained=None)  # random init: the real model code, no weights to fetch
    index = FaissImageIndex(data / "visual_index.faiss", encoder.name, encoder.dim)
    visual = VisualMemory(stack.memory, LIMITS, index=index, encoder=encoder)
    images = TurnImages(visual, ImageRecall(visual), max_images=4, max_side=512, max_kb=300)
    stack.backends.image_desk = ImageDesk(images, data / "uploads" / "images")
    stack.backends.image_desk.upload_dir.mkdir(parents=True)
    port = ConversationMemory(stack.memory, TurnIndexer(stack.memory.write_turns, stack.journal))
    orchestrator = Orchestrator(
        [scripted_choice(SeeingAgent)],
        stack.journal,
        ContextGatherer(JournalHistory(stack.journal, 8), memory=port),
        PromptBuilder("You are a test.", EstimateCounter(), 8000),
        memory=port,
        images=images,
    )
    app = build_app(orchestrator, title="Daemon", backends=stack.backends)
    url = launch(
        app, "127.0.0.1", free_port(), None, block=False, quiet=True, blocked_paths=[data], max_file_mb=2.0
    )
    try:
        yield Gui(url, stack, data, tmp_path_factory.mktemp("screenshots"))
    finally:
        app.close()
        visual.close()
        stack.close()
        restore_uploads()


def test_add_an_image_see_it_search_it_and_remove_it(context: Any, gui: Gui, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    photo = draw(tmp_path / "beach.png", (250, 210, 60))
    page = open_page(context, gui)
    tab(page, "Images")
    page.set_input_files("#img-upload input[type=file]", str(photo))
    page.fill("#img-tags textarea, #img-tags input", "Jo")
    page.fill("#img-caption textarea, #img-caption input", "Jo building a sandcastle at the beach")
    page.click("#img-add")
    status, gallery = page.locator("#img-status"), page.locator("#img-gallery")
    expect(status).to_contain_text("added beach.png", timeout=60_000)  # the first add loads the encoder
    expect(gallery.locator("img")).to_have_count(1)
    expect(gallery).to_contain_text("sandcastle")
    others = [
        draw(tmp_path / "lake.png", (40, 90, 220), "rectangle"),
        draw(tmp_path / "bike.png", (220, 20, 20)),
    ]
    page.set_input_files("#img-upload input[type=file]", [str(p) for p in others])
    page.fill("#img-tags textarea, #img-tags input", "Sam")
    page.fill("#img-caption textarea, #img-caption input", "a day out with Sam")
    page.click("#img-add")
    expect(status).to_contain_text("added bike.png")
    expect(gallery.locator("img")).to_have_count(3)
    gui.shot(page, "images")
    # the thumbnail comes from Gradio's upload folder, never from the data dir's own files
    source = gallery.locator("img").first.get_attribute("src") or ""
    assert "/gradio_api/file=" in source and str(gui.data / "uploads") not in source

    page.set_input_files("#img-upload input[type=file]", str(photo))
    page.click("#img-add")
    expect(status).to_contain_text("already stored")
    expect(gallery.locator("img")).to_have_count(3)

    page.fill("#img-query textarea, #img-query input", "sandcastle")
    page.click("#img-search")
    expect(status).to_contain_text("found for 'sandcastle'")
    gallery.locator("img").first.click()
    expect(page.locator("#img-selected")).to_contain_text("Selected: Jo building a sandcastle")
    page.click("#img-remove")
    expect(page.locator("#img-confirm-row")).to_be_visible()
    page.click("#img-cancel")  # nothing is removed without the confirmation
    expect(page.locator("#img-confirm-row")).to_be_hidden()
    page.click("#img-remove")
    page.click("#img-confirm")
    expect(status).to_contain_text("removed Jo building a sandcastle")
    expect(gallery.locator("img")).to_have_count(2)
    expect(gallery).not_to_contain_text("sandcastle")
    desk = gui.stack.backends.image_desk
    assert desk is not None and len(desk.visual.images()) == 2
    assert desk.visual.index is not None and len(desk.visual.index.ids()) == 2  # FAISS follows Chroma


def test_attach_a_document_in_the_message_box_then_ask_about_it(
    context: Any, gui: Gui, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    doc = tmp_path / "walrus.md"
    doc.write_text("# Walrus plan\n\nThe walrus plan meets on pier 17 every Tuesday.\n")
    page = open_page(context, gui)
    page.set_input_files("#msg input[type=file]", str(doc))
    send(page, "cite where does the walrus plan meet?")
    chat = page.locator("#chatbot")
    expect(chat).to_contain_text("document walrus.md: added to your documents", timeout=30_000)
    expect(chat).to_contain_text("From your documents [1]")
    expect(page.locator("#sources")).to_contain_text("pier 17")
    assert (gui.data / "uploads" / "walrus.md").is_file()  # where the Documents tab keeps its uploads


def test_an_image_attached_in_the_message_box_goes_to_the_turn(
    context: Any, gui: Gui, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    photo = draw(tmp_path / "kite.png", (20, 160, 90), "triangle")
    page = open_page(context, gui)
    SeeingAgent.seen.clear()
    page.set_input_files("#msg input[type=file]", str(photo))
    send(page, "what is in this picture?")
    expect(page.locator("#chatbot")).to_contain_text("image kite.png", timeout=60_000)
    expect(page.locator("#chatbot")).to_contain_text("Echo: what is in this picture?")
    assert [len(images) for images in SeeingAgent.seen] == [1]
    assert SeeingAgent.seen[0][0].media_type == "image/jpeg"
    send(page, "and now?")  # the next turn carries no image
    expect(page.locator("#chatbot")).to_contain_text("Echo: and now?")
    assert [len(images) for images in SeeingAgent.seen] == [1, 0]
