"""The commands that run on built services: ask, history, the REPL, memory, facts and the GUI."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

from ui.idle import IdleSessionEnder
from ui.services import Services


def run_front_end(command: str, args: argparse.Namespace, services: Services) -> int:
    """Dispatch one command that needs the orchestrator or the stores."""
    from ui import cli

    if services.sessions is not None and command in ("cli", "gui", "session"):
        from ui.session_cli import resume_interrupted

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
        from ui.review_cli import review_command

        assert services.review is not None and services.memory is not None
        return review_command(args.review_command, services.review, services.memory, services.facts, args)
    if command == "session":
        from ui.session_cli import end_session

        assert services.sessions is not None
        return end_session(services.sessions, args.session, as_json=args.json)
    if command == "memory":
        return memory_command(args, services)
    if command == "prompt":
        from ui.prompt_cli import prompt_command

        return prompt_command(
            services.orchestrator,
            args.text,
            session_id=args.session,
            budget=args.budget,
            as_json=args.json,
            explain=args.explain,
        )
    if command == "facts":
        from ui.facts_cli import list_facts

        assert services.facts is not None
        return list_facts(services.facts, status=args.status, as_json=args.json)
    return run_gui(services)


def memory_command(args: argparse.Namespace, services: Services) -> int:
    from ui.memory_cli import memory_search, memory_stats

    assert services.memory is not None
    if args.memory_command == "stats":
        return memory_stats(services.memory, as_json=args.json)
    return memory_search(
        services.memory,
        args.query,
        collection=args.collection,
        k=args.k,
        intent=args.intent,
        as_json=args.json,
    )


def run_gui(services: Services) -> int:
    from ui.gradio_app import build_app, launch
    from ui.security import check_bind, parse_auth

    gui = services.config.gui
    auth = parse_auth(services.env.get(gui.auth_env))
    check_bind(gui.host, auth)
    # Gradio keeps uploads in its temp dir: keep them inside the data dir, never in a shared /tmp.
    os.environ.setdefault("GRADIO_TEMP_DIR", str(services.config.data_dir / "gradio-tmp"))
    from ui.gui_backends import from_services
    from ui.gui_status import health_payload

    parts = from_services(services)
    app = build_app(services.orchestrator, model_notice=services.model_notice(), backends=parts)
    print(f"Daemon is starting at http://{gui.host}:{gui.port}  (Ctrl-C to stop)", file=sys.stderr)
    started = time.time()
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
        )
    finally:
        if idle is not None and services.sessions is not None:  # the sessions this GUI served end with it
            idle.stop()
            print("Saving what these sessions taught me…", file=sys.stderr)
            asyncio.run(services.sessions.end_active(since=started))
    return 0
