"""The commands that run on built services: ask, history, the REPL, memory, facts and the GUI."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ui.shared.idle import IdleSessionEnder
from ui.shared.services import Services

if TYPE_CHECKING:
    from ui.attach.client import DaemonClient
    from ui.shared.front_ports import Searchable

ATTACHABLE = frozenset({"ask", "history", "memory", "facts", "cli"})  # served by a running Daemon if any


def run_command(command: str, args: argparse.Namespace, data_dir: Path, build: Callable[[], Services]) -> int:
    """A command of `ATTACHABLE` through the Daemon running on `data_dir` when one answers; any command on
    services `build` makes here otherwise (closed at the end)."""
    if command in ATTACHABLE:
        from ui.attach.client import attach

        if (running := attach(data_dir)) is not None:
            return run_attached(command, args, running)
    services = build()
    try:
        return run_front_end(command, args, services)
    finally:
        services.close()


def run_front_end(command: str, args: argparse.Namespace, services: Services) -> int:
    """Dispatch one command that needs the orchestrator or the stores."""
    from ui.terminal import chat as cli

    if services.sessions is not None and command in ("cli", "gui", "session"):
        from ui.terminal.sessions import resume_interrupted

        resume_interrupted(services.sessions)
    if command == "ask":
        return cli.ask(services.orchestrator, args.text, session_id=args.session, as_json=args.json)
    if command == "history":
        return cli.history(
            services.orchestrator, session_id=args.session, as_json=args.json, limit=args.limit
        )
    if command == "cli":
        repl = cli.Repl(
            services.orchestrator, banner=services.banner(), sessions=services.sessions, tools=services.tools
        )
        return repl.run()
    if command == "review":
        from ui.terminal.review import review_command

        assert services.review is not None and services.memory is not None
        return review_command(args.review_command, services.review, services.memory, services.facts, args)
    if command == "session":
        from ui.terminal.sessions import end_session

        assert services.sessions is not None
        return end_session(services.sessions, args.session, as_json=args.json)
    if command == "memory":
        assert services.memory is not None
        return memory_command(args, services.memory)
    if command == "prompt":
        from ui.terminal.prompt import prompt_command

        return prompt_command(
            services.orchestrator,
            args.text,
            session_id=args.session,
            budget=args.budget,
            as_json=args.json,
            explain=args.explain,
        )
    if command == "facts":
        from ui.terminal.facts import list_facts

        assert services.facts is not None
        return list_facts(services.facts, status=args.status, as_json=args.json)
    return run_gui(services)


def memory_command(args: argparse.Namespace, memory: Searchable) -> int:
    """`memory search|stats` over this process's store or the running Daemon's."""
    from ui.terminal.memory import memory_search, memory_stats

    if args.memory_command == "stats":
        return memory_stats(memory, as_json=args.json)
    return memory_search(
        memory,
        args.query,
        collection=args.collection,
        k=args.k,
        intent=args.intent,
        as_json=args.json,
    )


def run_attached(command: str, args: argparse.Namespace, client: DaemonClient) -> int:
    """One of `ATTACHABLE` through the Daemon already running on the data dir: the same renderers as
    `run_front_end`, over proxies of its orchestrator and stores (ui/attach/client.py)."""
    from ui.attach.client import RemoteConversation, RemoteFacts, RemoteMemory
    from ui.terminal import chat as cli

    if command == "memory":
        print(f"(through {client.describe()})", file=sys.stderr)
        return memory_command(args, RemoteMemory(client))
    if command == "facts":
        from ui.terminal.facts import list_facts

        print(f"(through {client.describe()})", file=sys.stderr)
        return list_facts(RemoteFacts(client), status=args.status, as_json=args.json)
    conversation = RemoteConversation(client)
    if command == "cli":
        return cli.Repl(conversation, banner=attached_banner(client, conversation.default_model)).run()
    print(f"(through {client.describe()})", file=sys.stderr)
    if command == "history":
        return cli.history(conversation, session_id=args.session, as_json=args.json, limit=args.limit)
    return cli.ask(conversation, args.text, session_id=args.session, as_json=args.json)


def attached_banner(client: DaemonClient, model: str) -> str:
    """The REPL's first lines when another process holds the data dir and does the work."""
    from ui.attach.client import started_ago

    e = client.endpoint
    return (
        f"Attached to the running Daemon ({e.kind}, pid {e.pid}, port {e.port}, started "
        f"{started_ago(e)}) - model: {model}\n"
        "Your turns run there: it journals and remembers them, and processes the sessions when it stops."
    )


def run_gui(services: Services) -> int:
    from ui.gui.app import build_app, launch
    from ui.shared.security import check_bind, parse_auth

    gui = services.config.gui
    auth = parse_auth(services.env.get(gui.auth_env))
    check_bind(gui.host, auth)
    # Gradio keeps uploads in its temp dir: keep them inside the data dir, never in a shared /tmp.
    os.environ.setdefault("GRADIO_TEMP_DIR", str(services.config.data_dir / "gradio-tmp"))
    from ui.attach.control_routes import attachable_bind, open_control
    from ui.gui.backends import from_services
    from ui.gui.status_tab import health_payload

    parts = from_services(services)
    app = build_app(services.orchestrator, model_notice=services.model_notice(), backends=parts)
    print(f"Daemon is starting at http://{gui.host}:{gui.port}  (Ctrl-C to stop)", file=sys.stderr)
    started = time.time()
    files, control = open_control(services, "gui") if attachable_bind(gui.host) else (None, None)
    idle = None
    if services.sessions is not None:
        idle = IdleSessionEnder(services.sessions, services.config.session.idle_end_minutes * 60.0)
        idle.start()
    try:
        launch(
            app,
            gui.host,
            gui.port,
            auth,
            blocked_paths=[services.config.data_dir],
            quiet=True,
            health=lambda: health_payload(services.orchestrator, parts),
            max_file_mb=parts.upload_mb,
            routes=[control] if control is not None else [],
            block=False,  # returns once the server listens: only then may front ends attach
        )
        if files is not None:
            files.announce(gui.port, "gui")
        app.block_thread()  # what launch(block=True) does: serve until Ctrl-C or SIGTERM
    finally:
        if files is not None:  # front ends started from now on run on their own
            files.withdraw()
        if idle is not None and services.sessions is not None:  # the sessions this GUI served end with it
            idle.stop()
            print("Saving what these sessions taught me…", file=sys.stderr)
            asyncio.run(services.sessions.end_active(since=started))
    return 0
