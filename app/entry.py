"""`python main.py …`: what every command shares (offline defaults, a private umask, the termination
handler, one guarded top level), then the chosen command's `run`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from app import VERSION
from app.commands import COMMANDS, command_named
from app.commands.base import Command
from app.parser import build_parser
from core.data_dir import PRIVATE_UMASK
from ui.shared.boundary import protect_streams

if TYPE_CHECKING:
    from core.config import AppConfig

# Nothing phones home and nothing is fetched from a model hub unless the user opts in by setting these.
OFFLINE_DEFAULTS = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "ANONYMIZED_TELEMETRY": "False",
    "TOKENIZERS_PARALLELISM": "false",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TQDM_DISABLE": "1",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv`, run the command, return its exit code; a failure is one line on stderr, never a
    traceback (ui/shared/failures.py)."""
    protect_streams()  # stdin never fails to decode, stdout/stderr pass no escape sequence
    args = build_parser(VERSION, COMMANDS).parse_args(argv)
    command = command_named(args.command)
    for name, value in OFFLINE_DEFAULTS.items():
        os.environ.setdefault(name, value)
    os.umask(PRIVATE_UMASK)  # whatever this process creates (journal, Chroma, logs) is the user's alone
    from core.torch_compat import install_import_hook

    install_import_hook()  # any import of transformers/torchvision/open_clip gets the torchvision shim first
    # SIGTERM unwinds the main thread like Ctrl-C: the front end's own cleanup (session-end processing,
    # closing files) then runs on its own event loop, never inside a signal handler.
    from ui.shared.termination import install_termination

    install_termination()
    from ui.shared.failures import run_guarded

    return run_guarded(lambda: _run(command, args), f"`{command.name}`")


def _run(command: Command, args: argparse.Namespace) -> int:
    from app.settings import load_settings
    from core.data_dir import prepare_data_dir
    from ui.shared.failures import setup_logging

    config, env = load_settings(args)
    if command.keeps_data:
        prepare_data_dir(config.data_dir)  # private (0700/0600); a clear error if it cannot be a folder
        if _restore_if_asked(config):
            config, env = load_settings(args)  # the restored folder's own saved settings
    # stderr, one line a record (`--json` keeps stdout one object); tracebacks go to the data dir's log
    log_dir = config.data_dir if command.keeps_data or config.data_dir.is_dir() else None
    setup_logging(config.log_level, log_dir)
    return command.run(args, config, env)


def _restore_if_asked(config: AppConfig) -> bool:
    """A snapshot the GUI asked to restore is restored now, before anything opens the data folder;
    whether one was asked for."""
    from app.builders.archive import archive_layout, sole_memory
    from ui.shared.restore_snapshot import RESTORE_ON_START, restore_pending

    if not (config.data_dir / RESTORE_ON_START).is_file():
        return False
    layout = archive_layout()
    said = restore_pending(config.data_dir, layout, lambda: sole_memory(config), app_version=VERSION)
    print(said, file=sys.stderr)
    return True
