"""The Chat tab: streamed turns, live tool lines, Stop, clickable sources, the approve/reject bar and a
session that survives a reload (its id kept in the browser's own storage, so two browsers never share).

Gradio is handed in (`gr`) by `ui.gui.app.build_app`, which imports it lazily.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from ui.gui.backends import GuiBackends
from ui.gui.chat_controller import (
    CONFIGURED,
    ChatBackend,
    ChatController,
    ChatUpdate,
    mode_choices,
    mode_options,
    offers_a_choice,
    requested_mode,
)
from ui.gui.chat_logic import (
    GuiChatSession,
    RecordingBackend,
    attached_paths,
    describe_proposal,
    history_messages,
    model_options,
    source_choices,
    take_attachments,
)
from ui.gui.items import open_citation
from ui.shared import render

SESSION_KEY = "daemon-chat-session"


@dataclass
class ChatTab:
    """The components other tabs reach (the Sessions tab opens a past session into the chat)."""

    session: Any
    chatbot: Any
    browser_id: Any
    status: Any
    selectors: tuple[Any, Any, Any]  # the model and mode selectors and the model notice
    models_now: Callable[[], tuple[Any, Any, Any]]  # their updates for the models answering now


def build_chat_tab(gr: Any, backend: ChatBackend, parts: GuiBackends, model_notice: str | None) -> ChatTab:
    """Lay out the chat and wire it; call inside a `gr.Blocks` (and a tab)."""
    c: dict[str, Any] = {"session": gr.State(GuiChatSession())}
    # about the model answering at start: hidden once the wizard switches to another (`models_now`)
    c["notice"] = gr.Markdown(model_notice or "", elem_id="notice", visible=bool(model_notice))
    c["browser_id"] = gr.BrowserState("", storage_key=SESSION_KEY, secret=parts.browser_secret)
    with gr.Row(equal_height=True):
        c["model"] = gr.Dropdown(
            choices=model_options(backend),
            value=backend.default_model,
            elem_id="model",
            label="Model",
            show_label=False,
            container=False,
            scale=4,
        )
        c["new"] = gr.Button("New chat", elem_id="new", size="md", scale=1, min_width=100)
    options = mode_options(backend, backend.default_model)
    c["mode"] = gr.Radio(
        choices=mode_choices(options),
        value=CONFIGURED,
        label="Mode for the next message",
        info="best-of and duel write answers out of sight and show the one a judge picks",
        elem_id="mode",
        visible=offers_a_choice(options),
    )
    c["chatbot"] = gr.Chatbot(
        elem_id="chatbot",
        label="Chat",
        show_label=False,
        height=480,
        sanitize_html=True,
        allow_tags=False,
        feedback_options=None,
        buttons=["copy"],
        placeholder="Ask me anything.",
        allow_file_downloads=False,
    )
    with gr.Group(visible=False, elem_id="proposal") as c["proposal"]:
        c["proposal_text"] = gr.Markdown("", elem_id="proposal-text")
        with gr.Row():
            c["approve"] = gr.Button("Approve", elem_id="approve", variant="primary", size="sm")
            c["reject"] = gr.Button("Reject", elem_id="reject", size="sm")
    with gr.Row(equal_height=True):
        # The message box takes files too (its clip button, or drop them on it): documents are ingested,
        # images go to visual memory and to a vision model with this turn (ui/gui/chat_logic.py).
        c["msg"] = gr.MultimodalTextbox(
            elem_id="msg",
            show_label=False,
            container=False,
            lines=1,
            max_lines=8,
            scale=8,
            autofocus=True,
            file_count="multiple",
            sources=["upload"],
            submit_btn=False,
            placeholder="Message (Enter to send, Shift+Enter for a new line; attach files with the clip)",
        )
        c["send"] = gr.Button("Send", elem_id="send", variant="primary", size="md", scale=1, min_width=80)
        c["stop"] = gr.Button("Stop", elem_id="stop", variant="stop", size="md", scale=1, min_width=80)
    c["status"] = gr.Markdown("", elem_id="status")
    with gr.Accordion("Sources", open=True, visible=False, elem_id="sources-box") as c["sources_box"]:
        c["sources"] = gr.Radio(choices=[], elem_id="sources", show_label=False, container=False)
        c["source_view"] = gr.Markdown("", elem_id="source-view")
    handlers = _wire(gr, backend, parts, c)
    selectors = (c["model"], c["mode"], c["notice"])
    return ChatTab(c["session"], c["chatbot"], c["browser_id"], c["status"], selectors, handlers.models_now)


def _outputs(update: ChatUpdate, gr: Any) -> tuple[Any, ...]:
    return tuple(gr.skip() if value is None else value for value in update)


def _wire(gr: Any, backend: ChatBackend, parts: GuiBackends, c: dict[str, Any]) -> _Handlers:
    handlers = _Handlers(gr, backend, parts)
    after = [c["proposal"], c["proposal_text"], c["sources_box"], c["sources"], c["source_view"]]
    gr.on(
        triggers=[c["send"].click, c["msg"].submit],
        fn=handlers.submit,
        inputs=[c["msg"], c["chatbot"], c["session"], c["model"], c["mode"]],
        outputs=[c["chatbot"], c["msg"], c["status"], c["browser_id"]],
        api_name="chat",
        show_progress="hidden",
    ).then(handlers.after_turn, inputs=[c["session"]], outputs=[*after, c["mode"]], queue=False)
    c["model"].change(handlers.modes_for, inputs=[c["model"]], outputs=[c["mode"]], show_progress="hidden")
    c["stop"].click(
        handlers.stop,
        inputs=[c["session"]],
        outputs=[c["status"]],
        concurrency_limit=None,
        api_name="stop",
        show_progress="hidden",
    )
    gr.on(  # the Chatbot's own clear (trash) button means New chat too, so page and session agree
        triggers=[c["new"].click, c["chatbot"].clear],
        fn=handlers.new_chat,
        inputs=[c["session"]],
        outputs=[c["chatbot"], c["msg"], c["status"], *after, c["browser_id"]],
        concurrency_limit=None,
        api_name="new_chat",
        show_progress="hidden",
    )
    c["sources"].select(handlers.open_source, inputs=[c["sources"], c["session"]], outputs=[c["source_view"]])
    c["approve"].click(
        handlers.approve,
        inputs=[c["chatbot"], c["session"]],
        outputs=[c["chatbot"], c["status"], c["proposal"], c["proposal_text"]],
        show_progress="hidden",
    )
    c["reject"].click(
        handlers.reject,
        inputs=[c["session"]],
        outputs=[c["status"], c["proposal"], c["proposal_text"]],
        show_progress="hidden",
    )
    return handlers


class _Handlers:
    """The chat's event handlers; per-tab state arrives as the `GuiChatSession` argument, never here."""

    def __init__(self, gr: Any, backend: ChatBackend, parts: GuiBackends) -> None:
        self.gr, self.backend, self.parts = gr, backend, parts
        self.controller = ChatController(backend)
        self.noticed_model = backend.default_model  # the model the notice is about

    async def submit(
        self,
        text: str | dict[str, Any],
        history: list[Any],
        session: GuiChatSession,
        model: str,
        mode: str | None = None,
    ) -> AsyncIterator[Any]:
        """One turn of this browser's chat, in the mode picked for it (refused when that is unavailable)."""
        asked, refusal = requested_mode(mode, mode_options(self.backend, model))
        if refusal is not None:
            yield (self.gr.skip(), self.gr.skip(), f"⚠ {refusal}", self.gr.skip())
            return
        files = attached_paths(text) if session.cancel is None else []  # busy: the turn is refused anyway
        if files:
            yield (self.gr.skip(), self.gr.skip(), f"Reading {len(files)} attached file(s)…", self.gr.skip())
        text = await self._with_attachments(text, files, session)
        controller = ChatController(RecordingBackend(self.backend, session))
        yielded = False
        turn = controller.submit(text, history, session, model, mode=asked)
        async with contextlib.aclosing(turn) as updates:
            async for update in updates:
                yielded = True
                # the session id goes to this browser's storage with the first update, so a reload at
                # any moment of the turn continues this session
                yield (*_outputs(update, self.gr), session.session_id or self.gr.skip())
        if not yielded:
            yield (*_outputs(ChatUpdate(), self.gr), self.gr.skip())

    async def _with_attachments(
        self, value: str | dict[str, Any], files: list[str], session: GuiChatSession
    ) -> str:
        """The turn's text, with a line per attached file; the attached images wait in `session` for it."""
        text = value if isinstance(value, str) else str(value.get("text") or "")
        if not files:
            return text
        attached = await take_attachments(files, self.parts.documents, self.parts.image_desk)
        session.attached = attached.images
        return attached.message(text)

    def after_turn(self, session: GuiChatSession) -> tuple[Any, ...]:
        """Show the turn's proposals and sources; the mode picked was for that turn only."""
        return (*self._proposal_bar(session), *self._sources(session), CONFIGURED)

    def modes_for(self, model: str | None) -> Any:
        """The mode selector for another model (a duel needs a rival, best-of a judge)."""
        options = mode_options(self.backend, model)
        return self.gr.update(
            choices=mode_choices(options), value=CONFIGURED, visible=offers_a_choice(options)
        )

    def models_now(self) -> tuple[Any, Any, Any]:
        """The model selector as the backend has it now, on its default (a model picked in the wizard
        answers from the next turn on), that model's mode selector, and the notice (hidden once the
        model it is about no longer answers by default)."""
        default = self.backend.default_model
        models = self.gr.update(choices=model_options(self.backend), value=default)
        notice = self.gr.skip() if default == self.noticed_model else self.gr.update(visible=False)
        return models, self.modes_for(default), notice

    def _proposal_bar(self, session: GuiChatSession) -> tuple[Any, Any]:
        if not session.proposals:
            return self.gr.update(visible=False), ""
        return self.gr.update(visible=True), describe_proposal(session.proposals[0])

    def _sources(self, session: GuiChatSession) -> tuple[Any, Any, Any]:
        choices = source_choices(session.citations)
        box = self.gr.update(visible=bool(choices))
        return box, self.gr.update(choices=choices, value=None), ""

    async def stop(self, session: GuiChatSession) -> Any:  # async: sets an asyncio.Event on the server loop
        self.controller.stop(session)
        return self.gr.skip()  # the turn's own stream writes "Stopping…" and then how it ended

    async def new_chat(self, session: GuiChatSession) -> tuple[Any, ...]:
        update = self.controller.new_chat(session)
        session.proposals.clear()
        session.citations = []
        return (*_outputs(update, self.gr), *self._proposal_bar(session), *self._sources(session), "")

    async def open_source(self, choice: str | None, session: GuiChatSession) -> str:
        try:
            citation = session.citations[int(choice or "")]
        except (ValueError, IndexError):
            return ""
        return await open_citation(self.parts.memory, citation)

    async def approve(self, history: list[Any], session: GuiChatSession) -> tuple[Any, ...]:
        """Run the first pending proposal through the tool runner's guards (the REPL's), as approved."""
        if not session.proposals:
            return (self.gr.skip(), "", *self._proposal_bar(session))
        proposal = session.proposals.pop(0)
        if self.parts.tools is None:
            status = f"{proposal.call.name} was not run: no tool runner in this GUI."
            return (self.gr.skip(), status, *self._proposal_bar(session))
        outcome = await self.parts.tools.run(proposal.call, approved=True)
        line = render.format_tool_result(outcome.ok, outcome.output)
        title = "tool: " + render.format_tool_call(proposal.call)
        shown = [*list(history or ()), _tool_message(title, line)]
        status = f"{proposal.call.name} {'ran' if outcome.ok else 'failed'} (approved)."
        return (shown, status, *self._proposal_bar(session))

    def reject(self, session: GuiChatSession) -> tuple[Any, ...]:
        """Drop the first pending proposal: it never runs."""
        if not session.proposals:
            return ("", *self._proposal_bar(session))
        proposal = session.proposals.pop(0)
        return (f"{proposal.call.name} was not run (rejected).", *self._proposal_bar(session))


def _tool_message(title: str, line: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": render.neutralize_remote_media(line),
        "metadata": {"title": title, "status": "done"},
    }


def restore(backend: ChatBackend, stored_id: str | None, session: GuiChatSession) -> list[dict[str, Any]]:
    """Continue the session this browser had (its id from the browser's storage): its turns, or nothing
    when it is unknown (a fresh browser, another data dir)."""
    history = getattr(backend, "history", None)
    if not stored_id or history is None or session.session_id is not None:
        return []
    turns = history(stored_id)
    if not turns:
        return []
    session.session_id = stored_id
    return history_messages(turns)
