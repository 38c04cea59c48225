"""`python main.py gui` on a data folder with a damaged knowledge graph: the page itself tells the person
what starting repaired (the GUI's user never sees stderr), and a clean folder's page says nothing of it."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from core.config_user import save_settings
from tests.browser.gui_page import served_gui

ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
NOTE = "While starting, Daemon repaired or noticed"

pytestmark = pytest.mark.slow


def page_config(tmp_path: Path, damage: bool) -> str:
    (tmp_path / "echo.yaml").write_text(ECHO_CONFIG)
    data = tmp_path / "data"
    save_settings(data, {"user": {"setup_complete": True}})
    if damage:
        (data / "knowledge_graph.json").write_bytes(b'{"format": "daemon.knowledge_graph", "graph": ')
    env = {**os.environ, "DAEMON_DATA_DIR": str(data)}
    env.pop("GRADIO_TEMP_DIR", None)
    with served_gui(["--config", str(tmp_path / "echo.yaml")], env, tmp_path) as url:
        return httpx.get(url + "/config", timeout=30).text  # the components, the notice text included


def test_what_starting_repaired_is_shown_on_the_page(tmp_path: Path) -> None:
    shown = page_config(tmp_path, damage=True)
    assert NOTE in shown and "knowledge graph" in shown
    assert list((tmp_path / "data").glob("knowledge_graph.json.corrupt-*"))  # kept aside, as the note says


def test_a_clean_start_shows_no_repair_note(tmp_path: Path) -> None:
    assert NOTE not in page_config(tmp_path, damage=False)
