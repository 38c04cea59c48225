"""`python main.py analyze TEXT|--file FILE [--session ID] [--explain] [--json]`: how Daemon reads a message
(intent, tone, topics, entities), offline, with no model call and nothing stored."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.base import Command
from ui.shared.boundary import message_arg, session_arg

if TYPE_CHECKING:
    from core.config import AppConfig


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", nargs="?", type=message_arg, help="the message")
    parser.add_argument("--file", type=Path, help="one message per line; prints {results: [...]} in order")
    reading = "read it as this session's next turn (escalation; nothing stored)"
    parser.add_argument("--session", type=session_arg, help=reading)
    why = "say why the tone and intent were chosen (cues, the heads' probabilities, filters)"
    parser.add_argument("--explain", action="store_true", help=why)
    parser.add_argument("--json", action="store_true")


def _run(args: argparse.Namespace, config: AppConfig, env: dict[str, str]) -> int:
    from app.builders.models import build_analyzer
    from memory.embeddings import MiniLMEmbedder
    from memory.session_state_store import read_session_states
    from ui.terminal.analyze import analyze_command

    states = read_session_states(config.data_dir) if args.session else None  # reads only: takes no lock
    try:
        return analyze_command(
            build_analyzer(MiniLMEmbedder(threads=1)),
            args.text,
            args.file,
            as_json=args.json,
            session_id=args.session,
            states=states,
            explain=args.explain,
        )
    finally:
        if states is not None:
            states.close()


COMMAND = Command(
    "analyze", "intent, tone, topics and entities of a message (no LLM)", _arguments, _run, keeps_data=False
)
