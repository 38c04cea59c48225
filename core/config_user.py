"""The user's own settings, saved by the first-run wizard and the Settings tab in `<data dir>/settings.yaml`.

The file holds ordinary config keys (`user.name`, `models.main`, `providers.<name>`, `obsidian.vault`,
`session.git_repos`) and is merged over the committed `config.yaml`, under `--config FILE`, `.env`, the
environment and flags (core/config.py). Keys never go here (core/secrets.py). `user.setup_complete` is the
marker that the wizard was finished or skipped: without it the GUI shows the wizard.

Each save keeps the previous readable file as `settings.yaml.bak`. A file that cannot be read as settings
(not YAML, not UTF-8, not a mapping: a crash of another program, a bad copy) never stops Daemon from
starting: `recover_settings` moves it aside (kept, never deleted), puts the backup back when it reads, and
says so.
"""

from __future__ import annotations

import shutil
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
    return _settings_in(settings_path(data_dir)) or {}


def _settings_in(path: Path) -> dict[str, Any] | None:
    """The settings a file holds; None when it cannot be read as settings (or is missing)."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if data is None:
        return {}
    return data if isinstance(data, dict) else None


def recover_settings(data_dir: Path) -> str | None:
    """Move an unreadable settings file aside and put back its last readable copy (if any); what to tell
    the user, or None when there was nothing to do."""
    from core.durable import move_aside

    path = settings_path(data_dir)
    if not path.is_file() or _settings_in(path) is not None:
        return None
    kept = move_aside(path)
    backup = _backup(path)
    if _settings_in(backup) is not None:
        shutil.copy2(backup, path)
        return f"your saved settings could not be read (kept in {kept}); the previous copy was put back"
    return (
        f"your saved settings could not be read (kept in {kept}); the defaults apply until you save "
        "settings again in the Settings tab or the setup wizard"
    )


def _backup(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


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
    if _settings_in(path) is not None:  # the copy a damaged file is recovered from
        write_private(_backup(path), path.read_text(encoding="utf-8"))
    write_private(path, header + yaml.safe_dump(merged, sort_keys=False, allow_unicode=True))
    return path
