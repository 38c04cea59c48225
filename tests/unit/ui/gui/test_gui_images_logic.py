"""The Images tab's desk and the message box's attachments, over a real visual memory (Chroma + FAISS in a
temp folder, the cheap pixel encoder): add, duplicate, bad files, search, removal that keeps both indexes
in step; attached images filed and handed to the next turn only."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from core.events import Done, RunEvent
from memory.visual.attach import TurnImages
from memory.visual.retrieval import ImageRecall
from memory.visual.store import VisualMemory
from tests.unit.memory.visual_helpers import close, consistent, draw, open_visual
from ui.gui.chat_logic import Attached, GuiChatSession, RecordingBackend, attached_paths, take_attachments
from ui.gui.images_tab import ImageDesk


@pytest.fixture
def visual(tmp_path: Path) -> Iterator[VisualMemory]:
    memory = open_visual(tmp_path / "data")
    yield memory
    close(memory)


@pytest.fixture
def desk(tmp_path: Path, visual: VisualMemory) -> ImageDesk:
    images = TurnImages(visual, ImageRecall(visual), max_images=4, max_side=256, max_kb=100)
    return ImageDesk(images, tmp_path / "data" / "uploads" / "images")


def test_an_added_image_is_copied_into_the_upload_dir_and_shown(tmp_path: Path, desk: ImageDesk) -> None:
    stored, line = desk.add(str(draw(tmp_path / "in" / "beach.png", (250, 210, 60))), "Jo", "Jo at the beach")
    assert stored is not None and line.startswith("added beach.png")
    assert Path(stored.path).parent == desk.upload_dir and Path(stored.path).is_file()
    shown = desk.newest()
    assert shown.ids == [stored.id] and "Jo at the beach" in shown.items[0][1]
    assert max(shown.items[0][0].size) <= 448  # a thumbnail travels, never the file's path


def test_the_same_bytes_again_are_already_stored_and_leave_no_copy(tmp_path: Path, desk: ImageDesk) -> None:
    first = draw(tmp_path / "in" / "a.png", (10, 20, 30))
    stored, _ = desk.add(str(first))
    again = tmp_path / "in" / "copy-of-a.png"
    again.write_bytes(first.read_bytes())
    same, line = desk.add(str(again))
    assert same == stored and "already stored" in line
    assert sorted(p.name for p in desk.upload_dir.iterdir()) == ["a.png"]


def test_a_file_that_is_no_image_is_refused_and_nothing_is_kept(tmp_path: Path, desk: ImageDesk) -> None:
    fake = tmp_path / "in" / "holiday.png"
    fake.parent.mkdir(parents=True)
    fake.write_text("not an image at all")
    stored, line = desk.add(str(fake))
    assert stored is None and line.startswith("⚠") and "not an image" in line
    assert desk.newest().ids == [] and not desk.upload_dir.exists()


async def test_search_finds_by_caption(tmp_path: Path, desk: ImageDesk) -> None:
    desk.add(str(draw(tmp_path / "in" / "bike.png", (220, 20, 20), "triangle")), caption="a red bicycle")
    desk.add(
        str(draw(tmp_path / "in" / "lake.png", (40, 90, 220), "rectangle")), caption="Sam fishing by the lake"
    )
    found = await desk.search("bicycle")
    assert found.items and "red bicycle" in found.items[0][1]


def test_remove_keeps_faiss_and_chroma_in_step(tmp_path: Path, desk: ImageDesk, visual: VisualMemory) -> None:
    keep, _ = desk.add(str(draw(tmp_path / "in" / "keep.png", (1, 200, 1))))
    gone, _ = desk.add(str(draw(tmp_path / "in" / "gone.png", (200, 1, 1))))
    assert keep is not None and gone is not None
    assert desk.remove(gone.id).startswith("removed")
    assert [i.id for i in visual.images()] == [keep.id] and consistent(visual)
    assert not Path(gone.path).exists() and Path(keep.path).exists()


async def test_attached_image_and_document_are_filed_and_noted(tmp_path: Path, desk: ImageDesk) -> None:
    photo = draw(tmp_path / "in" / "cat.png", (90, 90, 90))
    notes = tmp_path / "in" / "notes.md"
    notes.write_text("# Notes\nThe boat is blue.")
    attached = await take_attachments([str(photo), str(notes)], None, desk)
    assert len(attached.images) == 1 and attached.images[0].media_type == "image/jpeg"
    assert attached.notes[0].startswith("image cat.png")
    assert attached.notes[1] == "⚠ notes.md: documents are not available in this GUI"
    assert desk.newest().ids  # the photo is in visual memory now
    assert attached.message("what is this?").startswith("what is this?\n\n- image cat.png")
    assert Attached(notes=["image x.png: x"]).message("") == "(attached)\n- image x.png: x"


def test_message_box_values_carry_files_only_as_a_dict() -> None:
    assert attached_paths({"text": "hi", "files": ["/tmp/a.png"]}) == ["/tmp/a.png"]
    assert attached_paths("hi") == [] and attached_paths(None) == []


class Seen:
    default_model = "m"
    model_names = ["m"]

    def describe_model(self, name: str) -> str:
        return "the m model"

    def __init__(self) -> None:
        self.options: list[dict[str, Any]] = []

    def new_session(self) -> str:
        return "s"

    async def run_turn(self, text: str, **options: Any) -> AsyncIterator[RunEvent]:
        self.options.append(options)
        yield Done(answer="ok")


async def test_attached_images_go_to_the_next_turn_only(tmp_path: Path, desk: ImageDesk) -> None:
    session, backend = GuiChatSession(), Seen()
    attached = await take_attachments([str(draw(tmp_path / "in" / "p.png", (5, 5, 5)))], None, desk)
    session.attached = attached.images
    recording = RecordingBackend(backend, session)
    for _ in range(2):
        async for _event in recording.run_turn("look", session_id="s"):
            pass
    assert backend.options[0]["images"] == tuple(attached.images)
    assert "images" not in backend.options[1] and session.attached == []
