"""The Gradio GUI: the Chat, Memory, Graph, Documents, Images, Status, Sessions, Your data and Settings tabs
(ui/gui/*_tab.py) on one page, with the first-run wizard above them until the setup is done.

`build_app` lays the tabs out over the orchestrator and the services in `GuiBackends`; Gradio is imported
lazily there. `launch` serves the page on a checked address, with a `/health` route for Docker. Per-browser
state lives in `gr.State` (and the chat's session id in the browser's own storage); nothing is
module-global. docs/gui.md describes the page.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ui.gui.backends import GuiBackends
from ui.gui.chat_controller import ChatBackend
from ui.gui.chat_tab import build_chat_tab, restore
from ui.gui.connections_tab import build_connections_tab
from ui.gui.data_tab import build_data_tab
from ui.gui.documents_tab import build_documents_tab
from ui.gui.graph_tab import build_graph_tab
from ui.gui.images_tab import build_images_tab
from ui.gui.memory_tab import build_memory_tab
from ui.gui.notes_tab import build_notes_tab
from ui.gui.reminders_tab import build_reminder_banner, build_reminders_tab
from ui.gui.sessions_tab import build_sessions_tab
from ui.gui.settings_tab import attach_wizard, build_settings_tab, build_wizard
from ui.gui.skills_tab import build_skills_tab
from ui.gui.status_tab import build_status_tab
from ui.shared.security import HostAllowlist, LoginThrottle, allowed_hosts_for, check_bind

if TYPE_CHECKING:
    import gradio as gr

__all__ = ["build_app", "launch"]

_CSS = """
.gradio-container { max-width: 960px !important; margin: 0 auto !important; }
#notice { font-size: 0.9em; opacity: 0.8; }
#status { font-size: 0.85em; opacity: 0.75; min-height: 1.4em; }
#mode label[data-testid*="(unavailable:"] { opacity: 0.5; pointer-events: none; }
"""


def build_app(
    orchestrator: ChatBackend,
    *,
    title: str = "Daemon",
    model_notice: str | None = None,
    concurrency_limit: int = 4,
    backends: GuiBackends | None = None,
) -> gr.Blocks:
    """Build the page with its tabs (not yet served; see `launch`). Gradio is imported here, not at module
    load. Without `backends` only the chat works; the other tabs say what is missing."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # main sets it; never let it default on
    import gradio as gr

    parts = backends or GuiBackends()
    with gr.Blocks(title=title, analytics_enabled=False, fill_height=True) as app:
        gr.Markdown(f"# {title}", elem_id="title")
        build_reminder_banner(gr, parts.reminders)  # due reminders, above everything else
        wizard = build_wizard(gr, parts.setup)  # above the tabs: shown on load until setup is done
        # with a wizard, the page load shows either it or the tabs (never both, never one then the other)
        with gr.Tabs(elem_id="tabs", visible=wizard is None) as tabs:
            with gr.Tab("Chat", id="chat", elem_id="tab-chat"):
                chat = build_chat_tab(gr, orchestrator, parts, model_notice)
            with gr.Tab("Memory", id="memory", elem_id="tab-memory") as memory_tab:
                memory = build_memory_tab(gr, parts)
            with gr.Tab("Graph", id="graph", elem_id="tab-graph") as graph_tab:
                build_graph_tab(gr, parts.knowledge, graph_tab)  # redraws itself when opened
            with gr.Tab("Documents", id="documents", elem_id="tab-documents") as documents_tab:
                documents = build_documents_tab(gr, parts)
            with gr.Tab("Images", id="images", elem_id="tab-images") as images_tab:
                images = build_images_tab(gr, parts)
            with gr.Tab("Status", id="status", elem_id="tab-status") as status_tab:
                status = build_status_tab(gr, orchestrator, parts)
            with gr.Tab("Sessions", id="sessions", elem_id="tab-sessions") as sessions_tab:
                sessions = build_sessions_tab(gr, orchestrator, parts, chat)
            # Reminders, notes, skills and connections share one tab: more tabs do not fit a laptop's width.
            with gr.Tab("Tasks", id="tasks", elem_id="tab-tasks") as tasks_tab, gr.Tabs(elem_id="task-tabs"):
                with gr.Tab("Reminders", id="reminders", elem_id="tab-reminders") as reminders_tab:
                    reminders = build_reminders_tab(gr, parts.reminders)
                with gr.Tab("Notes and to-dos", id="notes", elem_id="tab-notes") as notes_tab:
                    notes = build_notes_tab(gr, parts.notes)
                with gr.Tab("Skills", id="skills", elem_id="tab-skills") as skills_tab:
                    skills = build_skills_tab(gr, parts.skills)
                with gr.Tab("Connections", id="connections", elem_id="tab-connections") as connections_tab:
                    connections = build_connections_tab(
                        gr,
                        parts.synthesis,
                        run_seconds=parts.synthesis_seconds,
                        runner=parts.reminders.background if parts.reminders else None,
                    )
            with gr.Tab("Your data", id="data", elem_id="tab-data") as data_tab:
                data = build_data_tab(gr, parts.data)
            with gr.Tab("Settings", id="settings", elem_id="tab-settings") as settings_tab:
                build_settings_tab(gr, parts.setup, wizard, settings_tab)  # reads itself afresh when opened
        _refresh_on_open(
            gr,
            memory_tab,
            memory,
            documents_tab,
            documents,
            images_tab,
            images,
            status_tab,
            status,
            sessions_tab,
            sessions,
            tasks_tab,  # opening it shows its first inner tab, the reminders
            reminders,
            reminders_tab,
            reminders,
            notes_tab,
            notes,
            skills_tab,
            skills,
            connections_tab,
            connections,
            data_tab,
            data,
        )

        async def on_load(stored_id: str, session: Any) -> Any:
            messages = await asyncio.to_thread(restore, orchestrator, stored_id, session)
            return messages or gr.skip()

        app.load(on_load, [chat.browser_id, chat.session], [chat.chatbot], show_progress="hidden")
        # the models answering now: a model picked in the wizard is the default from its next turn on
        app.load(chat.models_now, None, list(chat.selectors), show_progress="hidden", queue=False)
        if wizard is not None:
            wizard["tabs"] = tabs  # hidden while the wizard shows: it stands alone until done or skipped
        finished = attach_wizard(gr, app, wizard, parts.setup)
        if finished is not None:
            finished.then(chat.models_now, None, list(chat.selectors), show_progress="hidden", queue=False)
    app.queue(default_concurrency_limit=concurrency_limit)
    return app


def _refresh_on_open(gr: Any, *pairs: Any) -> None:
    """Each tab reads its tables afresh when it is opened (what the chat just learned shows at once)."""
    for tab, parts in zip(pairs[0::2], pairs[1::2], strict=True):
        if parts is not None:
            tab.select(parts["reload"], None, parts["reload_outputs"], show_progress="hidden")


def launch(
    app: gr.Blocks,
    host: str = "127.0.0.1",
    port: int = 7860,
    auth: tuple[str, str] | None = None,
    *,
    block: bool = True,
    blocked_paths: Sequence[str | Path] = (),
    quiet: bool = False,
    health: Callable[[], dict[str, Any]] | None = None,
    max_file_mb: float = 1.0,
    routes: Sequence[Any] = (),
) -> str:
    """Serve `app` on host:port and return its local URL.

    Refuses a non-loopback `host` without `auth` (`ConfigError`). Never creates a share link; a loopback
    server only answers loopback Host names. `block=False` returns at once (call `app.close()` to stop);
    put the data directory in `blocked_paths` so no file route can ever reach it. `health` answers
    `GET /health` as JSON without a login (Docker's health check); uploads above `max_file_mb` are refused.
    `routes` (Starlette routes with their own auth, e.g. the mount of ui/attach/control_routes.py) come
    before Gradio's.
    """
    from starlette.middleware import Middleware

    check_bind(host, auth)
    blocked = blocked_except(blocked_paths, upload_folder())
    allowed = allowed_hosts_for(host)
    middleware = [] if allowed is None else [Middleware(HostAllowlist, allowed=allowed)]
    if auth is not None:
        middleware.append(Middleware(LoginThrottle))
    _, local_url, _ = app.launch(
        server_name=host,
        server_port=port,
        auth=auth,
        share=False,
        inbrowser=False,
        prevent_thread_lock=not block,
        show_error=False,
        quiet=quiet,
        ssr_mode=False,
        mcp_server=False,
        pwa=False,
        enable_monitoring=False,
        max_file_size=f"{max_file_mb:g}mb",
        strict_cors=True,
        footer_links=[],
        blocked_paths=blocked,
        allowed_paths=[],
        app_kwargs={"middleware": middleware, "routes": [*_health_routes(health), *routes]},
        css=_CSS,
    )
    return local_url


def _health_routes(health: Callable[[], dict[str, Any]] | None) -> list[Any]:
    """`GET /health`: the payload as JSON, 200 when ok and 503 when a subsystem fails (no login: it says
    only which parts answer). Registered before Gradio's own routes."""
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    def endpoint(_request: Any) -> JSONResponse:  # sync: Starlette runs it in its thread pool
        payload = health() if health is not None else {"ok": True}
        return JSONResponse(payload, status_code=200 if payload.get("ok") else 503)

    return [Route("/health", endpoint, methods=["GET"])]


def upload_folder() -> Path:
    """Where Gradio keeps uploads (`GRADIO_TEMP_DIR`, which `gui` puts inside the data dir)."""
    import tempfile

    return Path(os.environ.get("GRADIO_TEMP_DIR") or Path(tempfile.gettempdir()) / "gradio").resolve()


def blocked_except(blocked: Sequence[str | Path], keep: Path) -> list[str]:
    """`blocked`, except that a blocked folder holding `keep` (the upload folder inside the data dir) is
    replaced by everything in it beside the way down to `keep`: Gradio refuses uploads from a blocked path,
    and its file route serves only the upload folder anyway, so the rest of the data dir stays out."""
    out: list[str] = []
    for path in (Path(p).resolve() for p in blocked):
        if keep == path or not keep.is_relative_to(path):
            out.append(str(path))
            continue
        keep.mkdir(parents=True, exist_ok=True)
        current = path
        for part in keep.relative_to(path).parts:
            out += sorted(str(child) for child in current.iterdir() if child.name != part)
            current = current / part
    return out
