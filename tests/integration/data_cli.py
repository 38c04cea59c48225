"""What the process tests of `export`, `import`, `backup`, `task`, `trace` and background tasks share:
`main.py` on the echo model in a given data folder, a `cli` session that owns a folder meanwhile, and a
digest of a folder's files (to show a refused import changed nothing)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"


def main(
    tmp_path: Path, data: Path, *args: str, stdin: str | None = None, config_extra: str = ""
) -> subprocess.CompletedProcess[str]:
    """`main.py ARGS` on the echo model (plus `config_extra`, YAML) with `data` as its data folder."""
    config = tmp_path / "echo.yaml"
    config.write_text(ECHO_CONFIG + config_extra)
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


@contextmanager
def cli_holding(tmp_path: Path, data: Path) -> Iterator[None]:
    """A `cli` session on the echo model that owns `data` (its lock) until the block ends."""
    config = tmp_path / "echo.yaml"
    config.write_text(ECHO_CONFIG)
    running = subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), "--config", str(config), "cli"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "DAEMON_DATA_DIR": str(data)},
        cwd=tmp_path,
    )
    try:
        assert running.stdout is not None
        assert "Type /help" in running.stdout.readline() + running.stdout.readline()  # it owns the folder now
        yield
    finally:
        running.communicate("/quit\n", timeout=120)


def digest(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
