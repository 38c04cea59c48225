"""`python main.py image ...` as real processes: the JSON contract, dedupe across processes, bad files as
an `error:` line with exit 2 and nothing stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.memory.visual_helpers import draw, png_header_only

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # each process loads MiniLM


def _main(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DAEMON_")}
    return subprocess.run(
        [sys.executable, "main.py", "--data-dir", str(data), "image", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_image_add_stores_once_refuses_bad_files_and_lists_as_json(tmp_path: Path) -> None:
    data, photo = tmp_path / "data", draw(tmp_path / "beach_with_jo.png", (240, 200, 40))
    bomb = png_header_only(tmp_path / "bomb.png", 30_000, 30_000)

    first = _main(data, "add", str(photo), "--tags", "Jo, beach", "--json")
    again = _main(data, "add", str(photo), "--json")
    refused = _main(data, "add", str(bomb))
    listed = _main(data, "list", "--json")

    assert first.returncode == 0, first.stderr[-2000:]
    added, duplicate = json.loads(first.stdout), json.loads(again.stdout)
    assert added["duplicate"] is False and duplicate["duplicate"] is True and duplicate["id"] == added["id"]
    assert added["caption"].startswith("beach with jo") and added["tags"] == ["Jo", "beach"]
    assert added["indexed"] is False  # no CLIP weights in the committed config
    assert refused.returncode == 2 and refused.stderr.startswith("error: bomb.png")
    assert "Traceback" not in refused.stderr and refused.stdout == ""
    assert [image["id"] for image in json.loads(listed.stdout)["images"]] == [added["id"]]
