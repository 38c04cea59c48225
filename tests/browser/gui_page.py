"""What the GUI tab tests share: the served page (`Gui`), Gradio's upload folder inside the data dir as the
`gui` command sets it, and the page actions (open, send, switch tab)."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

DOCS_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


class Gui:
    """A GUI served on 127.0.0.1 over a test stack, with where its screenshots go."""

    def __init__(self, url: str, stack: Any, data: Path, shots: Path) -> None:
        self.url, self.stack, self.data, self.shots = url, stack, data, shots

    def shot(self, page: Any, name: str) -> Path:
        """Save a screenshot of the page (and refresh docs/screenshots when DAEMON_UPDATE_SCREENSHOTS=1)."""
        path = self.shots / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        if os.environ.get("DAEMON_UPDATE_SCREENSHOTS") == "1":
            DOCS_SHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, DOCS_SHOTS / path.name)
        return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def uploads_inside(data: Path) -> Callable[[], None]:
    """Put Gradio's upload folder inside the data dir, as `gui` does (the data dir is blocked around it);
    returns what puts the previous setting back."""
    previous = os.environ.get("GRADIO_TEMP_DIR")
    os.environ["GRADIO_TEMP_DIR"] = str(data / "gradio-tmp")

    def restore() -> None:
        if previous is None:
            os.environ.pop("GRADIO_TEMP_DIR", None)
        else:
            os.environ["GRADIO_TEMP_DIR"] = previous

    return restore


def open_page(context: Any, gui: Gui) -> Any:
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(gui.url)
    page.wait_for_selector("#msg textarea")
    return page


def send(page: Any, text: str) -> None:
    page.fill("#msg textarea", text)
    page.click("#send")


def tab(page: Any, name: str) -> None:
    page.get_by_role("tab", name=name).click()
