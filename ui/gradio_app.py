"""The Gradio chat page: a thin streaming view over `Orchestrator.run_turn`.

`build_app` wires a `ChatController` (ui/chat_controller.py, no Gradio) to components; Gradio is imported
lazily there. `launch` serves the page on a checked address. Per-browser state lives in
`gr.State(ChatSession())`; nothing is module-global.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ui.chat_controller import ChatBackend, ChatController, ChatSession, ChatUpdate
from ui.security import HostAllowlist, allowed_hosts_for, check_bind

if TYPE_CHECKING:
    import gradio as gr

__all__ = ["build_app", "launch"]

_CSS = """
.gradio-container { max-width: 960px !important; margin: 0 auto !important; }
#notice { font-size: 0.9em; opacity: 0.8; }
#status { font-size: 0.85em; opacity: 0.75; min-height: 1.4em; }
"""


def _outputs(update: ChatUpdate, gr: Any) -> tuple[Any, Any, Any]:
    return tuple(gr.skip() if value is None else value for value in update)  # type: ignore[return-value]


def build_app(
    orchestrator: ChatBackend,
    *,
    title: str = "Daemon",
    model_notice: str | None = None,
    concurrency_limit: int = 4,
) -> gr.Blocks:
    """Build the chat page (not yet served; see `launch`). Gradio is imported here, not at module load."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # main sets it; never let it default on
    import gradio as gr

    controller = ChatController(orchestrator)
    with gr.Blocks(title=title, analytics_enabled=False, fill_height=True) as app:
        gr.Markdown(f"# {title}", elem_id="title")
        if model_notice:
            gr.Markdown(model_notice, elem_id="notice")
        session = gr.State(ChatSession())
        with gr.Row(equal_height=True):
            model = gr.Dropdown(
                choices=orchestrator.model_names,
                value=orchestrator.default_model,
                elem_id="model",
                label="Model",
                show_label=False,
                container=False,
                scale=4,
            )
            new = gr.Button("New chat", elem_id="new", size="md", scale=1, min_width=100)
        chatbot = gr.Chatbot(
            elem_id="chatbot",
            label="Chat",
            show_label=False,
            height=520,
            sanitize_html=True,
            allow_tags=False,
            feedback_options=None,
            buttons=["copy"],
            placeholder="Ask me anything.",
            allow_file_downloads=False,
        )
        with gr.Row(equal_height=True):
            msg = gr.Textbox(
                elem_id="msg",
                show_label=False,
                container=False,
                lines=1,
                max_lines=8,
                scale=8,
                autofocus=True,
                placeholder="Message (Enter to send, Shift+Enter for a new line)",
            )
            send = gr.Button("Send", elem_id="send", variant="primary", size="md", scale=1, min_width=80)
            stop = gr.Button("Stop", elem_id="stop", variant="stop", size="md", scale=1, min_width=80)
        status = gr.Markdown("", elem_id="status")
        _wire(
            gr,
            controller,
            session=session,
            chatbot=chatbot,
            msg=msg,
            status=status,
            model=model,
            send=send,
            stop=stop,
            new=new,
        )
    app.queue(default_concurrency_limit=concurrency_limit)
    return app


def _wire(gr: Any, controller: ChatController, **c: Any) -> None:
    """Connect the components to the controller."""

    async def on_submit(
        text: str, history: list[Any], session: ChatSession, model: str
    ) -> AsyncIterator[Any]:
        yielded = False
        async with contextlib.aclosing(controller.submit(text, history, session, model)) as updates:
            async for update in updates:
                yielded = True
                yield _outputs(update, gr)
        if not yielded:
            yield _outputs(ChatUpdate(), gr)

    async def on_stop(session: ChatSession) -> Any:  # async: sets an asyncio.Event on the server's loop
        status = controller.stop(session)
        return gr.skip() if status is None else status

    async def on_new(session: ChatSession) -> tuple[Any, Any, Any]:
        return _outputs(controller.new_chat(session), gr)

    gr.on(
        triggers=[c["send"].click, c["msg"].submit],
        fn=on_submit,
        inputs=[c["msg"], c["chatbot"], c["session"], c["model"]],
        outputs=[c["chatbot"], c["msg"], c["status"]],
        api_name="chat",
        show_progress="hidden",
    )
    c["stop"].click(
        on_stop,
        inputs=[c["session"]],
        outputs=[c["status"]],
        concurrency_limit=None,
        api_name="stop",
        show_progress="hidden",
    )
    gr.on(  # the Chatbot's own clear (trash) button means New chat too, so page and session agree
        triggers=[c["new"].click, c["chatbot"].clear],
        fn=on_new,
        inputs=[c["session"]],
        outputs=[c["chatbot"], c["msg"], c["status"]],
        concurrency_limit=None,
        api_name="new_chat",
        show_progress="hidden",
    )


def launch(
    app: gr.Blocks,
    host: str = "127.0.0.1",
    port: int = 7860,
    auth: tuple[str, str] | None = None,
    *,
    block: bool = True,
    blocked_paths: Sequence[str | Path] = (),
    quiet: bool = False,
) -> str:
    """Serve `app` on host:port and return its local URL.

    Refuses a non-loopback `host` without `auth` (`ConfigError`). Never creates a share link; a loopback
    server only answers loopback Host names. `block=False` returns at once (call `app.close()` to stop);
    put the data directory in `blocked_paths` so no file route can ever reach it.
    """
    from starlette.middleware import Middleware

    check_bind(host, auth)
    allowed = allowed_hosts_for(host)
    middleware = [] if allowed is None else [Middleware(HostAllowlist, allowed=allowed)]
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
        max_file_size="1mb",
        strict_cors=True,
        footer_links=[],
        blocked_paths=[str(path) for path in blocked_paths],
        allowed_paths=[],
        app_kwargs={"middleware": middleware},
        css=_CSS,
    )
    return local_url
