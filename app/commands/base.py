"""What a command is: its name, its one-line help, its arguments and its `run`, plus the one way the
commands that need the orchestrator get it (built here, or the running Daemon's when one answers)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.config import AppConfig
    from ui.attach.client import DaemonClient
    from ui.shared.services import Services

Run = Callable[[argparse.Namespace, "AppConfig", dict[str, str]], int]


@dataclass(frozen=True)
class Command:
    """One `python main.py NAME …` command.

    `arguments` adds its flags to the parser argparse made for it; `run(args, config, env)` returns the
    exit code. `keeps_data`: the data dir is prepared (created private) before `run`; the commands that
    only read or report (`doctor` reports a bad one) leave it as it is."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Run
    keeps_data: bool = True


def no_arguments(parser: argparse.ArgumentParser) -> None:
    """For a command without flags."""


def on_services(
    config: AppConfig,
    env: dict[str, str],
    use: Callable[[Services], int],
    *,
    attached: Callable[[DaemonClient], int] | None = None,
    with_memory: bool = True,
) -> int:
    """`use` on services built here and closed at the end; or, with `attached` and a Daemon already running
    on the data dir (the GUI, `api`), `attached` on a client of it, so both never fight over the folder."""
    from app.builders.services import build_services

    if attached is not None:
        from ui.attach.client import attach

        if (running := attach(config.data_dir)) is not None:
            return attached(running)
    services = build_services(config, env, with_memory=with_memory)
    try:
        return use(services)
    finally:
        services.close()


def resume_interrupted(services: Services) -> None:
    """Finish the session-end processing a crash cut short (the front ends that own sessions do this)."""
    if services.sessions is not None:
        from ui.terminal.sessions import resume_interrupted as resume

        resume(services.sessions)
