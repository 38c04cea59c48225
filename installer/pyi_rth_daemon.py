"""PyInstaller runtime hook of the desktop build: runs in the frozen app before main.py.

The app starts offline (main.py sets the same switches with `setdefault`; they are set here too so that
nothing imported before main.py phones home). The data dir needs nothing here: every way of running
defaults to the platform's per-user folder (core/data_dir.py), never the bundle's read-only folder.

`ingest --background` starts `sys.executable main.py …`; in the frozen app `sys.executable` already is
Daemon, so the script path it passes as the first argument is dropped here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from pathlib import Path

OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "ANONYMIZED_TELEMETRY": "False",
}


def strip_script_argument(argv: list[str], bundle_dir: str) -> list[str]:
    """argv without a leading path of the bundled main.py (a self-spawn written for `python main.py`)."""
    if len(argv) > 1 and Path(argv[1]).name == "main.py" and Path(argv[1]).parent == Path(bundle_dir):
        return [argv[0], *argv[2:]]
    return argv


def apply(environ: MutableMapping[str, str], argv: list[str], bundle_dir: str) -> list[str]:
    """Set the frozen app's defaults in `environ`; return the argv to run with."""
    for name, value in OFFLINE.items():
        environ.setdefault(name, value)
    return strip_script_argument(argv, bundle_dir)


if getattr(sys, "frozen", False):
    sys.argv[:] = apply(os.environ, sys.argv, getattr(sys, "_MEIPASS", ""))
