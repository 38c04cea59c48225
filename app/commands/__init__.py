"""Every `python main.py` command, in the order `--help` lists them.

A command is one module here holding its arguments and its `run` (`app/commands/base.py`'s `Command`);
adding one is that module plus one entry in `COMMANDS`. With no command, `DEFAULT` (the GUI) runs.
"""

from __future__ import annotations

from app.commands import (
    analyze,
    api,
    ask,
    backup,
    bench,
    cli,
    data,
    doctor,
    documents,
    evaluate,
    facts,
    gui,
    history,
    image,
    mcp,
    memory,
    prompt,
    purge,
    review,
    session,
    skills,
    sync,
    synthesis,
    task,
    tool,
    trace,
)
from app.commands.base import Command

COMMANDS: tuple[Command, ...] = (
    gui.COMMAND,
    cli.COMMAND,
    ask.COMMAND,
    history.COMMAND,
    doctor.COMMAND,
    analyze.COMMAND,
    memory.COMMAND,
    bench.COMMAND,
    evaluate.COMMAND,
    prompt.COMMAND,
    facts.COMMAND,
    session.COMMAND,
    review.COMMAND,
    documents.INGEST,
    documents.DOCS,
    image.COMMAND,
    sync.COMMAND,
    mcp.COMMAND,
    api.COMMAND,
    tool.COMMAND,
    data.EXPORT,
    data.IMPORT,
    purge.COMMAND,
    backup.COMMAND,
    task.COMMAND,
    skills.COMMAND,
    synthesis.COMMAND,
    trace.COMMAND,
)
DEFAULT = gui.COMMAND


def command_named(name: str | None) -> Command:
    """The command called `name` (None: the default one). argparse has already refused any other name."""
    if name is None:
        return DEFAULT
    return next(command for command in COMMANDS if command.name == name)
