"""Visual memory's store: dedupe, limits and bad files, and the FAISS index kept in step with
`visual_memories` across restarts, crashes between the two writes and lost or damaged index files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
from PIL import Image

from core.config import load_config
from core.errors import ConfigError, UserInputError
from memory.visual.decode import ImageRejected
from memory.visual.index import faiss_id
from memory.visual.retrieval import target_entities
from memory.visual.store import VISUAL, VisualMemory
from memory.visual.tagging import fallback_caption, split_tags
from tests.unit.memory.visual_helpers import close, consistent, draw, open_visual, png_header_only


@pytest.fixture
def visual(tmp_path: Path) -> Iterator[VisualMemory]:
    opened = open_visual(tmp_path / "data")
    yield opened
    close(opened)


class Crash(BaseException):
    """Stands for the process dying: nothing after it runs, no `except Exception` catches it."""


def test_the_same_bytes_are_stored_once_whatever_the_file_name(visual: VisualMemory, tmp_path: Path) -> None:
    first = draw(tmp_path / "beach.png", (250, 200, 40))
    copy = tmp_path / "copy_of_beach.png"
    copy.write_bytes(first.read_bytes())

    added = visual.add(first, caption="Jo on the beach")
    again = visual.add(copy, caption="something else")

    assert not added.duplicate and again.duplicate
    assert again.image.id == added.image.id and again.image.text == added.image.text
    assert len(visual.images()) == 1 and len(visual.index or []) == 1


def test_different_images_get_their_own_records_and_vectors(visual: VisualMemory, tmp_path: Path) -> None:
    for n, (colour, shape) in enumerate([((255, 0, 0), "ellipse"), ((0, 0, 255), "rectangle")]):
        visual.add(draw(tmp_path / f"{n}.png", colour, shape), caption=f"picture {n}")

    stored = visual.images()
    assert len(stored) == 2 and len({i.sha256 for i in stored}) == 2
    assert consistent(visual)


def test_indexes_stay_consistent_across_a_restart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = open_visual(data)
    for n, colour in enumerate([(255, 0, 0), (0, 160, 0), (0, 0, 255)]):
        first.add(draw(tmp_path / f"{n}.png", colour), caption=f"shape number {n}", tags="beach")
    before = {i.id: i.sha256 for i in first.images()}
    close(first)

    second = open_visual(data)
    try:
        assert {i.id: i.sha256 for i in second.images()} == before
        assert second.reconciled.dropped == 0 and second.reconciled.reencoded == 0
        assert consistent(second)
        assert second.add(tmp_path / "1.png").duplicate  # dedupe holds after the restart too
    finally:
        close(second)


def test_a_crash_between_the_vector_and_the_record_leaves_a_vector_the_next_open_drops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    first = open_visual(data)
    kept = first.add(draw(tmp_path / "kept.png", (10, 200, 10)), caption="kept")
    image = draw(tmp_path / "lost.png", (200, 10, 10), "triangle")

    def die(collection: str, records: object) -> None:
        raise Crash

    monkeypatch.setattr(first.memory, "add", die)
    with pytest.raises(Crash):
        first.add(image, caption="never recorded")
    assert len(first.index or []) == 2 and len(first.images()) == 1  # the torn state a crash leaves
    monkeypatch.undo()
    close(first)

    second = open_visual(data)
    try:
        assert second.reconciled.dropped == 1
        assert consistent(second) and [i.id for i in second.images()] == [kept.image.id]
        assert not second.add(image, caption="recorded now").duplicate
        assert consistent(second) and len(second.images()) == 2
    finally:
        close(second)


def test_a_failed_record_write_takes_its_vector_back_at_once(
    visual: VisualMemory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(collection: str, records: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(visual.memory, "add", refuse)
    with pytest.raises(OSError):
        visual.add(draw(tmp_path / "a.png", (1, 2, 3)), caption="x")
    assert len(visual.index or []) == 0


def test_a_lost_index_is_rebuilt_from_the_image_files(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = open_visual(data)
    for n in range(3):
        first.add(draw(tmp_path / f"{n}.png", (60 * n, 90, 200 - 50 * n), SHAPES_FOR[n]), caption=f"n{n}")
    close(first)
    (data / "visual_index.faiss").unlink()
    draw(tmp_path / "2.png", (0, 0, 0), "rectangle")  # this file changed since: it cannot be re-encoded

    second = open_visual(data)
    try:
        assert (second.reconciled.reencoded, second.reconciled.unindexed) == (2, 1)
        assert len(second.images()) == 3 and len(second.index or []) == 2
    finally:
        close(second)


SHAPES_FOR = ("ellipse", "rectangle", "triangle")


def test_a_damaged_index_file_is_moved_aside_and_rebuilt(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = open_visual(data)
    first.add(draw(tmp_path / "a.png", (200, 0, 0)), caption="a")
    close(first)
    (data / "visual_index.faiss").write_bytes(b"not a faiss index at all")

    second = open_visual(data)
    try:
        assert second.reconciled.reencoded == 1 and consistent(second)
        assert list(data.glob("visual_index.faiss.corrupt-*"))
    finally:
        close(second)


def test_removing_an_image_drops_its_record_and_its_vector(visual: VisualMemory, tmp_path: Path) -> None:
    keep = visual.add(draw(tmp_path / "keep.png", (0, 0, 0)), caption="keep").image
    gone = visual.add(draw(tmp_path / "gone.png", (255, 0, 255), "triangle"), caption="gone").image

    assert visual.remove(gone.sha256[:10]) == gone
    assert visual.remove(gone.id) is None
    assert [i.id for i in visual.images()] == [keep.id]
    assert visual.index is not None and visual.index.ids() == {faiss_id(keep.sha256)}
    assert visual.remove(str(tmp_path / "keep.png")) == keep


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"just some text, not an image", "is not an image"),
        (b"", "is not an image"),
    ],
)
def test_files_that_are_not_images_are_refused_and_nothing_is_stored(
    visual: VisualMemory, tmp_path: Path, content: bytes, expected: str
) -> None:
    path = tmp_path / "fake.png"
    path.write_bytes(content)
    with pytest.raises(ImageRejected, match=expected):
        visual.add(path)
    assert visual.images() == [] and len(visual.index or []) == 0


def test_a_truncated_image_is_refused_as_damaged(visual: VisualMemory, tmp_path: Path) -> None:
    whole = draw(tmp_path / "whole.png", (30, 60, 90), size=(300, 200)).read_bytes()
    cut = tmp_path / "cut.png"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ImageRejected, match="damaged"):
        visual.add(cut)
    assert visual.images() == []


def test_a_huge_image_is_refused_before_it_is_decoded(visual: VisualMemory, tmp_path: Path) -> None:
    bomb = png_header_only(tmp_path / "bomb.png", 60_000, 60_000)  # 3.6 gigapixels if decoded
    with pytest.raises(ImageRejected, match="too many pixels"):
        visual.add(bomb)
    big = png_header_only(tmp_path / "big.png", 3000, 3000)  # 9 Mpx: over max_pixels, under Pillow's guard
    with pytest.raises(ImageRejected, match="3000x3000 pixels"):
        visual.add(big)
    wide = png_header_only(tmp_path / "wide.png", 5000, 10)  # few pixels, but a side over max_side
    with pytest.raises(ImageRejected, match="5000x10"):
        visual.add(wide)
    assert visual.images() == []


def test_a_missing_file_and_a_folder_are_clear_errors(visual: VisualMemory, tmp_path: Path) -> None:
    with pytest.raises(ImageRejected, match="no such image file"):
        visual.add(tmp_path / "nowhere.png")
    with pytest.raises(ImageRejected, match="not a file"):
        visual.add(tmp_path)


def test_an_image_error_is_a_user_input_error_for_the_cli() -> None:
    assert issubclass(ImageRejected, UserInputError)


def test_without_a_caption_the_file_name_and_exif_date_describe_the_image(
    visual: VisualMemory, tmp_path: Path
) -> None:
    image = Image.new("RGB", (40, 30), (9, 99, 199))
    exif = Image.Exif()
    exif[0x0132] = "2024:07:03 18:30:00"  # DateTime
    path = tmp_path / "lake_at_dusk.jpg"
    image.save(path, exif=exif)

    stored = visual.add(path, tags="Jo, summer").image

    assert stored.caption_source == "file" and stored.media_type == "image/jpeg"
    assert stored.text.startswith("lake at dusk, taken 2024-07-03")
    assert "Tags: Jo, summer" in stored.text and stored.tags == ("Jo", "summer")
    assert fallback_caption("IMG_2041.jpg", None) == "image IMG_2041.jpg"
    assert fallback_caption("PXL_20240703_1830.jpg", datetime(2024, 7, 3)) == "taken 2024-07-03"


def test_record_metadata_fits_the_collection_schema(visual: VisualMemory, tmp_path: Path) -> None:
    stored = visual.add(draw(tmp_path / "a.png", (5, 5, 5)), caption="a").image
    raw = visual.memory.store.get(VISUAL, ids=[stored.id])[0].metadata
    assert raw["index_position"] == faiss_id(stored.sha256)
    assert json.loads(str(raw["entity_ids"])) == [] and raw["width"] == 96 and raw["height"] == 64


def test_the_visual_settings_live_in_config_yaml_and_bad_values_are_refused() -> None:
    settings = load_config().visual
    assert settings.weights is None and settings.model == "ViT-B-32" and settings.max_pixels >= 1
    with pytest.raises(ConfigError, match="visual.max_side"):
        load_config(overrides={"visual.max_side": 3})
    with pytest.raises(ConfigError, match="visual.colour"):
        load_config(overrides={"visual.colour": "red"})


def test_tags_are_split_trimmed_and_deduplicated() -> None:
    assert split_tags(" Jo , beach,,Jo ,  my   sister ") == ["Jo", "beach", "my sister"]
    assert split_tags(None) == []


@dataclass(frozen=True)
class _Mention:
    entity_id: str
    start: int
    end: int


def _mentions(text: str, *names: str) -> list[_Mention]:
    return [_Mention(n.lower(), text.index(n), text.index(n) + len(n)) for n in names]


def test_the_entity_nearest_the_visual_words_is_the_one_meant() -> None:
    text = "Sam sent me that photo of Jo from the lake"
    assert target_entities(text, _mentions(text, "Sam", "Jo")) == ["jo"]
    text = "what did Sam look like when Jo met him"
    assert target_entities(text, _mentions(text, "Sam", "Jo")) == ["sam"]
    text = "Jo and Sam at the lake"  # no visual word: every named entity, in order
    assert target_entities(text, _mentions(text, "Jo", "Sam")) == ["jo", "sam"]
