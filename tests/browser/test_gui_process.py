"""`python main.py gui` as a user starts it (real stores, real models, Gradio's uploads inside the data dir):
`/health` answers JSON, a foreign Host is refused, and a document uploaded in chromium is ingested.

The in-process browser tests use a light back end; this one proves the composition root's wiring: the upload
folder sits inside the blocked data dir, which only works because `launch` blocks around it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.config_user import save_settings
from tests.browser.gui_page import served_gui

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.integration]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"


@pytest.fixture(scope="module")
def gui_process(tmp_path_factory: pytest.TempPathFactory, chromium_path: Path) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("gui-process")
    (folder / "echo.yaml").write_text(ECHO_CONFIG)
    data = folder / "data"
    save_settings(data, {"user": {"setup_complete": True}})  # the wizard done: the chat shows at once
    env = {**os.environ, "DAEMON_DATA_DIR": str(data)}
    env.pop("GRADIO_TEMP_DIR", None)  # `gui` puts it inside the data dir
    with served_gui(["--config", str(folder / "echo.yaml")], env, folder) as url:
        yield url, data


def test_health_is_json_and_a_foreign_host_is_refused(gui_process: tuple[str, Path]) -> None:
    url, _ = gui_process
    health = httpx.get(url + "/health", timeout=10)
    assert health.status_code == 200 and health.headers["content-type"].startswith("application/json")
    assert health.json()["ok"] is True and health.json()["checks"]["memory store (Chroma)"] is True
    assert httpx.get(url + "/health", headers={"Host": "rebind.evil"}, timeout=10).status_code == 400
    assert httpx.get(url + "/", headers={"Host": "rebind.evil"}, timeout=10).status_code == 400


def test_a_document_uploaded_in_the_browser_is_ingested(
    gui_process: tuple[str, Path], browser: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    url, data = gui_process
    doc = tmp_path / "otter.md"
    doc.write_text("# Otter notes\n\nOtters hold hands while sleeping so they do not drift apart.\n")
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_selector("#msg textarea", timeout=60_000)
        page.get_by_role("tab", name="Documents").click()
        page.set_input_files("#doc-upload input[type=file]", str(doc))
        expect(page.locator("#doc-status")).to_contain_text("done", timeout=120_000)  # loads the tokenizer
        expect(page.locator("#docs")).to_contain_text("Otter notes")
    finally:
        context.close()
    assert (data / "uploads" / "otter.md").is_file()
    assert list((data / "gradio-tmp").rglob("otter.md"))  # Gradio's copy stayed inside the data dir
    secret = data / "facts.sqlite3"
    assert httpx.get(f"{url}/gradio_api/file={secret}", timeout=10).status_code >= 400
