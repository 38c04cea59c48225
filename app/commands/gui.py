"""`python main.py [gui] [--host H] [--port P]`: the web GUI (also what `python main.py` alone runs)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.commands.base import Command, on_services, resume_interrupted

if TYPE_CHECKING:
    from core.config import AppConfig
    from ui.shared.services import Services


def _arguments(parser: argparse.ArgumentParser) -> None:
    # --host and --port reach the config as gui.host and gui.port (app/settings.py)
    parser.add_argument("--host", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default 7860)")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from ui.gui.serve import serve_gui
    from ui.shared.startup_notes import StartupNotes

    notes = StartupNotes().attach()  # what starting repaired is shown in the page, not only logged

    def use(services: Services) -> int:
        resume_interrupted(services)
        notes.detach()
        return serve_gui(services, startup_notes=notes.text())

    try:
        return on_services(config, env, use)
    finally:
        notes.detach()


COMMAND = Command("gui", "start the web GUI (the default)", _arguments, _run)
