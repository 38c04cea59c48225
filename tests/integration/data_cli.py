"""What the process tests of `export` and `import` share: `main.py` on the echo model in a given data
folder, and a digest of a folder's files (to show a refused import changed nothing)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"


def main(
    tmp_path: Path, data: Path, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "echo.yaml"
    config.write_text(ECHO_CONFIG)
    env = {**os.environ, "DAEMON_DATA_DIR": str(data)}
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        input=stdin,
        timeout=300,
    )


def digest(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
