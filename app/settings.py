"""The frozen config and the environment a command runs with: config.yaml, `--config FILE`, what the setup
wizard saved in the data dir, `.env`, the environment and the flags, in that order of precedence (the last
wins); the API keys the wizard stored under the environment (a variable that is set wins)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.config import AppConfig

PROJECT_DIR = Path(__file__).resolve().parents[1]  # where main.py and config.yaml are
LEGACY_DATA_DIR = Path("data/user")  # the default before the per-user folder, inside the project


def load_settings(args: argparse.Namespace) -> tuple[AppConfig, dict[str, str]]:
    """The config and environment for `args` (core/config_user.py, core/secrets.py)."""
    from core.config import load_config, merged_environment
    from core.config_user import recover_settings, settings_path
    from core.data_dir import adopt_legacy_data, default_data_dir
    from core.secrets import SecretStore, under_environment

    env = merged_environment(os.environ, Path.cwd() / ".env")
    overrides: dict[str, Any] = {}
    if args.data_dir is not None:  # a relative flag is relative to where the user is
        overrides["data_dir"] = os.path.abspath(args.data_dir)
    if getattr(args, "host", None):
        overrides["gui.host"] = args.host
    if getattr(args, "port", None):
        overrides["gui.port"] = args.port
    config = _absolute_data_dir(load_config(args.config, env, overrides))
    legacy = PROJECT_DIR / "data" / "user"  # where versions before the per-user folder kept it
    if config.data_dir == default_data_dir() and (
        note := adopt_legacy_data(legacy, config.data_dir, _in_use)
    ):
        print(note, file=sys.stderr)
    env = under_environment(SecretStore(config.data_dir).as_env(), env)
    if note := recover_settings(config.data_dir):  # a damaged file never stops Daemon from starting
        print(note, file=sys.stderr)
    settings = settings_path(config.data_dir)
    return _absolute_data_dir(load_config(args.config, env, overrides, settings_file=settings)), env


def _absolute_data_dir(config: AppConfig) -> AppConfig:
    """A relative `data_dir` in a config file is relative to the project, not to where Daemon started."""
    if config.data_dir.is_absolute():
        return config
    return config.model_copy(update={"data_dir": (PROJECT_DIR / config.data_dir).resolve()})


def _in_use(folder: Path) -> bool:
    """Whether a running Daemon holds the data folder's lock."""
    from core.errors import StorageError
    from memory.lock import DataDirLock

    try:
        DataDirLock(folder).close()
    except StorageError:
        return True
    return False
