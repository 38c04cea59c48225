"""`python main.py gui`: the GUI served on the built services, the control routes other front ends attach
to, the idle-session ender, and the session-end processing of the sessions it served when it stops."""

from __future__ import annotations

import os
import sys

from ui.shared.background import scheduled_runs
from ui.shared.idle import sessions_served
from ui.shared.reminders import reminders_delivered, system_notifier
from ui.shared.scheduled_snapshots import snapshots_scheduled
from ui.shared.services import Services


def serve_gui(services: Services, startup_notes: str | None = None) -> int:
    """Serve the GUI on the configured address until Ctrl-C or SIGTERM; front ends started on the same data
    dir attach to it meanwhile; the sessions it served get their session-end processing when it stops.
    `startup_notes` (what starting repaired) is shown above the chat with the model notice."""
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
    notice = "\n\n".join(part for part in (startup_notes, services.model_notice()) if part) or None
    app = build_app(services.orchestrator, model_notice=notice, backends=parts)
    print(f"Daemon is starting at http://{gui.host}:{gui.port}  (Ctrl-C to stop)", file=sys.stderr)
    files, control = open_control(services, "gui") if attachable_bind(gui.host) else (None, None)
    if services.background is not None:
        services.background.start()  # tasks a crash or a close cut off are resumed (or failed) first
    desk, tasks = parts.reminders, services.config.tasks
    feed = services.reminder_feed() if desk is not None else None
    notifier = system_notifier(feed.zone, enabled=tasks.os_notifications) if feed is not None else None
    session = services.config.session
    # the sessions this GUI serves end with it (after the control files are withdrawn)
    with (
        sessions_served(services.sessions, session.idle_end_minutes, session.shutdown_budget_s),
        snapshots_scheduled(services.snapshots),
        # what came due while Daemon was closed is on the banner from the first page on
        reminders_delivered(
            feed,
            desk.board.add if desk else print,
            every_s=tasks.check_every_s,
            notifier=notifier,
            act=scheduled_runs(services.background, desk.book) if desk else None,
        ),
    ):
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
    return 0
