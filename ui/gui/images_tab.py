"""The Images tab: add photos to visual memory (with tags and the user's words), a gallery with captions,
search by text or by who is in them, and removal after a confirmation.

Everything goes through visual memory's own service (memory/visual/store.py: dedupe, captions, tags, the
FAISS and Chroma writes in their safe order) and its retrieval (memory/visual/retrieval.py: what
`recall_image` runs). Added files are copied into the data dir's `uploads/images/` (Gradio's temp copy may
be cleaned away). The browser never gets a path into the data dir: the gallery is handed small thumbnails
in memory, which Gradio writes into its own upload folder and serves from there (ui/gui/app.py keeps the
rest of the data dir blocked).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import DaemonError, UserInputError
from core.text import clip
from memory.visual.attach import TurnImages
from memory.visual.decode import ImageRejected, decode_image, read_image_bytes
from memory.visual.store import StoredImage
from ui.gui.backends import GuiBackends

IMAGE_TYPES = [".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"]
GALLERY_MAX = 60  # newest first; search reaches the rest
_UNSAFE = re.compile(r"[^\w.\- ]+")


@dataclass(frozen=True)
class Shown:
    """What the gallery shows: (thumbnail, caption) pairs and the image id behind each, in order."""

    items: list[tuple[Any, str]]
    ids: list[str]
    note: str


class ImageDesk:
    """Visual memory as the GUI uses it: add uploaded files, list, search, remove."""

    def __init__(self, images: TurnImages, upload_dir: Path) -> None:
        self.images = images
        self.visual = images.visual
        self.upload_dir = upload_dir

    def keep(self, temp_path: str, name: str | None = None) -> Path:
        """Copy an uploaded temp file into the upload dir under a safe, unused name."""
        self.upload_dir.mkdir(parents=True, exist_ok=True)
        clean = _UNSAFE.sub("_", Path(name or temp_path).name).strip(" .") or "image"
        target, n = self.upload_dir / clean, 1
        while target.exists():
            target, n = self.upload_dir / f"{Path(clean).stem}-{n}{Path(clean).suffix}", n + 1
        shutil.copyfile(temp_path, target)
        return target

    def add(self, temp_path: str, tags: str = "", caption: str = "") -> tuple[StoredImage | None, str]:
        """Store one uploaded image; the stored image and a line saying what happened (a duplicate is
        "already stored", a file that is no image says why, and nothing is kept of it)."""
        name = Path(temp_path).name
        try:
            decode_image(read_image_bytes(Path(temp_path), self.visual.limits), self.visual.limits, name)
        except ImageRejected as error:
            return None, f"⚠ {error}"
        duplicate = self._stored_copy(temp_path)
        if duplicate is not None:
            return duplicate, f"{name}: already stored as {duplicate.id}; nothing added"
        kept = self.keep(temp_path)
        try:
            outcome = self.visual.add(kept, caption=caption.strip() or None, tags=tags or None)
        except DaemonError as error:
            kept.unlink(missing_ok=True)
            return None, f"⚠ {error}"
        return outcome.image, f"added {name}: {clip(outcome.image.text, 160, one_line=True)}"

    def _stored_copy(self, temp_path: str) -> StoredImage | None:
        """The stored image with these bytes, if any (checked before copying: a duplicate leaves no file)."""
        digest = hashlib.sha256(Path(temp_path).read_bytes()).hexdigest()
        return next((i for i in self.visual.images() if i.sha256 == digest), None)

    def newest(self) -> Shown:
        """The newest images, for the gallery."""
        images = self.visual.images()
        note = f"{len(images)} images" + (
            f" (the newest {GALLERY_MAX} shown)" if len(images) > GALLERY_MAX else ""
        )
        return self._shown(images[:GALLERY_MAX], note)

    async def search(self, query: str) -> Shown:
        """Images for `query` the way `recall_image` finds them: the entity it names, CLIP, captions."""
        if not query.strip():
            return await asyncio.to_thread(self.newest)
        found = await self.images.recall.find_images(query, 12)
        images = await asyncio.to_thread(self.visual.by_ids, [e.id for e in found.entries])
        note = f"{len(images)} found for {clip(query, 60, one_line=True)!r} ({found.how})"
        return await asyncio.to_thread(self._shown, images, note)

    def remove(self, image_id: str) -> str:
        """Remove one image from visual memory (both indexes); the file in the upload dir goes too."""
        if not image_id:
            raise UserInputError("pick an image in the gallery first")
        removed = self.visual.remove(image_id)
        if removed is None:
            raise UserInputError(f"no stored image {image_id!r} (removed already?)")
        path = Path(removed.path)
        if path.parent == self.upload_dir.resolve():  # only a copy this tab made; the user's own files stay
            path.unlink(missing_ok=True)
        return f"removed {clip(removed.text, 120, one_line=True)}"

    def _shown(self, images: list[StoredImage], note: str) -> Shown:
        items, ids = [], []
        for image in images:
            items.append((self._thumbnail(image), clip(image.text, 120, one_line=True)))
            ids.append(image.id)
        return Shown(items, ids, note)

    def _thumbnail(self, image: StoredImage) -> Any:
        """A small copy (decoded within visual memory's limits), or a grey tile when the file is gone."""
        from PIL import Image

        try:
            return decode_image(
                read_image_bytes(Path(image.path), self.visual.limits), self.visual.limits
            ).preview
        except ImageRejected:
            return Image.new("RGB", (64, 64), (200, 200, 200))


def open_image_desk(images: TurnImages | None, data_dir: Path) -> ImageDesk | None:
    """The desk over the app's visual memory, adding into `data_dir/uploads/images` (made now: the launch
    blocks the data dir's entries as they are then)."""
    if images is None:
        return None
    upload_dir = data_dir / "uploads" / "images"
    upload_dir.mkdir(parents=True, exist_ok=True)
    return ImageDesk(images, upload_dir)


def build_images_tab(gr: Any, parts: GuiBackends) -> dict[str, Any] | None:
    """Lay out and wire the tab; None when visual memory is not open."""
    desk = parts.image_desk
    if desk is None:
        gr.Markdown("Images are not available in this GUI (memory is not loaded).")
        return None
    c: dict[str, Any] = {"ids": gr.State([]), "picked": gr.State("")}
    c["files"] = gr.File(
        label="Add photos (PNG, JPEG, GIF, WebP, BMP, TIFF)",
        file_count="multiple",
        file_types=IMAGE_TYPES,
        elem_id="img-upload",
        type="filepath",
    )
    with gr.Row(equal_height=True):
        c["tags"] = gr.Textbox(label="Who or what is in them (comma-separated)", elem_id="img-tags", scale=2)
        c["caption"] = gr.Textbox(label="What you say about them (optional)", elem_id="img-caption", scale=3)
        c["add"] = gr.Button("Add", elem_id="img-add", variant="primary", scale=1, min_width=80)
    c["status"] = gr.Markdown("", elem_id="img-status")
    with gr.Row(equal_height=True):
        c["query"] = gr.Textbox(label="Search by words or by name", elem_id="img-query", scale=4)
        c["search"] = gr.Button("Search", elem_id="img-search", scale=1, min_width=80)
        c["all"] = gr.Button("Show all", elem_id="img-all", scale=1, min_width=80)
    c["gallery"] = gr.Gallery(
        label="Visual memory",
        elem_id="img-gallery",
        columns=4,
        height="auto",
        fit_columns=False,  # a lone photo keeps its tile size instead of filling the row
        object_fit="contain",
        allow_preview=False,
        interactive=False,
    )
    with gr.Row(equal_height=True):
        c["selected"] = gr.Markdown("", elem_id="img-selected")
        c["remove"] = gr.Button("Remove…", elem_id="img-remove", variant="stop", size="sm", interactive=False)
    with gr.Row(visible=False, elem_id="img-confirm-row") as c["confirm_row"]:
        gr.Markdown("Remove this image from visual memory? Daemon will no longer recall it.")
        c["confirm"] = gr.Button("Yes, remove", elem_id="img-confirm", variant="stop", size="sm")
        c["cancel"] = gr.Button("Cancel", elem_id="img-cancel", size="sm")
    _wire(gr, desk, c)
    return c


def _wire(gr: Any, desk: ImageDesk, c: dict[str, Any]) -> None:
    shown = [c["gallery"], c["ids"], c["status"], c["selected"], c["remove"], c["confirm_row"]]

    def show(view: Shown, status: str | None = None) -> tuple[Any, ...]:
        unpicked = (gr.update(interactive=False), gr.update(visible=False))
        return (view.items, view.ids, status if status is not None else view.note, "", *unpicked)

    async def add(files: list[str] | None, tags: str, caption: str) -> tuple[Any, ...]:
        if not files:
            return (*show(await asyncio.to_thread(desk.newest), "Choose image files first."), None)
        lines = [(await asyncio.to_thread(desk.add, f, tags, caption))[1] for f in files]
        return (*show(await asyncio.to_thread(desk.newest), "  \n".join(lines)), None)

    async def search(query: str) -> tuple[Any, ...]:
        return show(await desk.search(query))

    async def everything() -> tuple[Any, ...]:
        return show(await asyncio.to_thread(desk.newest))

    def pick(ids: list[str], evt: Any) -> tuple[Any, ...]:
        index = getattr(evt, "index", None)
        if not isinstance(index, int) or not 0 <= index < len(ids):
            return "", "", gr.update(interactive=False)
        caption = evt.value.get("caption", "") if isinstance(evt.value, dict) else ""
        return ids[index], f"Selected: {caption}", gr.update(interactive=True)

    pick.__annotations__["evt"] = gr.SelectData  # Gradio is imported lazily: annotate at wiring time

    async def confirm(image_id: str) -> tuple[Any, ...]:
        try:
            message = await asyncio.to_thread(desk.remove, image_id)
        except DaemonError as error:
            message = f"⚠ {error}"
        return (*show(await asyncio.to_thread(desk.newest), message), "")

    c["add"].click(add, [c["files"], c["tags"], c["caption"]], [*shown, c["files"]])
    gr.on([c["search"].click, c["query"].submit], search, [c["query"]], shown)
    c["all"].click(everything, None, shown)
    c["gallery"].select(pick, [c["ids"]], [c["picked"], c["selected"], c["remove"]])
    c["remove"].click(lambda: gr.update(visible=True), None, [c["confirm_row"]])
    c["cancel"].click(lambda: gr.update(visible=False), None, [c["confirm_row"]])
    c["confirm"].click(confirm, [c["picked"]], [*shown, c["picked"]])
    c["reload"] = everything
    c["reload_outputs"] = shown
