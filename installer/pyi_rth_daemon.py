"""PyInstaller runtime hook of the desktop build: runs in the frozen app before main.py.

The bundle's folder is the program, not the user's: it may be read-only (Program Files, /opt) and is
replaced by every update. So the data dir defaults to the per-user folder of the platform (an explicit
`DAEMON_DATA_DIR` or `--data-dir` still wins), and the app starts offline (main.py sets the same switches
with `setdefault`; they are set here too so that nothing imported before main.py phones home).

`ingest --background` starts `sys.executable main.py …`; in the frozen app `sys.executable` already is
Daemon, so the script path it passes as the first argument is dropped here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, MutableMapping
from pathlib import Path

APP_NAME = "Daemon"
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "ANONYMIZED_TELEMETRY": "False",
}


def user_data_dir(platform: str, env: Mapping[str, str], home: Path) -> Path:
    """The per-user data folder: %LOCALAPPDATA%\\Daemon on Windows, ~/Library/Application Support/Daemon
    on macOS, $XDG_DATA_HOME/daemon (default ~/.local/share/daemon) elsewhere."""
    if platform == "win32":
        base = env.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return Path(base) / APP_NAME
    if platform == "darwin":
        return home / "Library" / "Application Support" / APP_NAME
    base = env.get("XDG_DATA_HOME") or str(home / ".local" / "share")
    return Path(base) / APP_NAME.lower()


def strip_script_argument(argv: list[str], bundle_dir: str) -> list[str]:
    """argv without a leading path of the bundled main.py (a self-spawn written for `python main.py`)."""
    if len(argv) > 1 and Path(argv[1]).name == "main.py" and Path(argv[1]).parent == Path(bundle_dir):
        return [argv[0], *argv[2:]]
    return argv


def apply(environ: MutableMapping[str, str], argv: list[str], bundle_dir: str) -> list[str]:
    """Set the frozen app's defaults in `environ`; return the argv to run with."""
    for name, value in OFFLINE.items():
        environ.setdefault(name, value)
    if not environ.get("DAEMON_DATA_DIR"):
        environ["DAEMON_DATA_DIR"] = str(user_data_dir(sys.platform, environ, Path.home()))
    return strip_script_argument(argv, bundle_dir)


if getattr(sys, "frozen", False):
    sys.argv[:] = apply(os.environ, sys.argv, getattr(sys, "_MEIPASS", ""))
