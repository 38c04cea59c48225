"""The user's own settings, saved by the first-run wizard and the Settings tab in `<data dir>/settings.yaml`.

The file holds ordinary config keys (`user.name`, `models.main`, `providers.<name>`, `obsidian.vault`,
`session.git_repos`) and is merged over the committed `config.yaml`, under `--config FILE`, `.env`, the
environment and flags (core/config.py). Keys never go here (core/secrets.py). `user.setup_complete` is the
marker that the wizard was finished or skipped: without it the GUI shows the wizard.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from core.config_memory import _Frozen

SETTINGS_FILE = "settings.yaml"
AnswerStyle = Literal["balanced", "concise", "detailed", "friendly"]
ANSWER_STYLES: tuple[str, ...] = ("balanced", "concise", "detailed", "friendly")


class UserConfig(_Frozen):
    """Who the user is and how they like answers; set by the wizard."""

    name: str = ""
    style: AnswerStyle = "balanced"
    setup_complete: bool = False
    timezone: str = ""  # an IANA name ("Europe/Paris"); empty: the system's (core/schedule/zone.py)


def settings_path(data_dir: Path) -> Path:
    return data_dir / SETTINGS_FILE


def read_settings(data_dir: Path) -> dict[str, Any]:
    """The saved settings (empty when none or unreadable: the defaults then apply)."""
    import yaml

    try:
        data = yaml.safe_load(settings_path(data_dir).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def setup_complete(data_dir: Path) -> bool:
    """Whether the wizard was finished or skipped for this data dir."""
    user = read_settings(data_dir).get("user")
    return isinstance(user, dict) and user.get("setup_complete") is True


def save_settings(data_dir: Path, changes: dict[str, Any]) -> Path:
    """Merge `changes` (nested dicts) into the saved settings and write them atomically (0600)."""
    import yaml

    from core.config import _deep_merge
    from core.data_dir import write_private

    merged = _deep_merge(read_settings(data_dir), changes)
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    header = "# Saved by Daemon's setup wizard and Settings tab; keys live in the keyring or secrets.json.\n"
    path = settings_path(data_dir)
    write_private(path, header + yaml.safe_dump(merged, sort_keys=False, allow_unicode=True))
    return path
