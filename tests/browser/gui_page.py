"""What the GUI tab tests share: the served page (`Gui`), Gradio's upload folder inside the data dir as the
`gui` command sets it, and the page actions (open, send, switch tab)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS_SHOTS = ROOT / "docs" / "screenshots"


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


@contextmanager
def stack_served(
    tmp_path_factory: pytest.TempPathFactory, name: str, prepare: Callable[[Any], None] | None = None
) -> Iterator[Gui]:
    """The GUI over a whole test stack (tests/browser/gui_stack.py) in a new data dir, as `gui` serves it;
    `prepare(stack)` runs before the server starts."""
    from tests.browser.gui_stack import build_stack
    from ui.gui.app import build_app, launch

    data = tmp_path_factory.mktemp(name)
    restore_uploads = uploads_inside(data)
    stack = build_stack(data)
    try:
        if prepare is not None:
            prepare(stack)
        app = build_app(stack.orchestrator, title="Daemon", backends=stack.backends)
        url = launch(app, "127.0.0.1", free_port(), None, block=False, quiet=True, blocked_paths=[data])
        try:
            yield Gui(url, stack, data, tmp_path_factory.mktemp("screenshots"))
        finally:
            app.close()
    finally:
        stack.close()
        restore_uploads()


def tab(page: Any, name: str) -> None:
    page.get_by_role("tab", name=name).click()


@contextmanager
def served_gui(args: list[str], env: dict[str, str], folder: Path, *, start_s: float = 180) -> Iterator[str]:
    """`python main.py ARGS gui --port P` as its own process, its log in `folder`: yields its URL once
    `/health` answers, and ends it with SIGTERM (killed if it does not stop within a minute)."""
    port = free_port()
    log = (folder / "gui.log").open("w")
    command = [sys.executable, str(ROOT / "main.py"), *args, "gui", "--port", str(port)]
    process = subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_s
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if httpx.get(url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail(f"the GUI did not start: {(folder / 'gui.log').read_text()[-2000:]}")
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
