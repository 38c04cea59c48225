"""The Sessions tab: past sessions with their summaries; open one in the chat; run session-end now."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from core.errors import DaemonError, UserInputError
from core.ports import TurnRecord
from core.text import clip
from ui.gui.backends import GuiBackends
from ui.gui.chat_logic import GuiChatSession, history_messages
from ui.gui.chat_tab import ChatTab
from ui.gui.widgets import empty_note, row_picker

SESSION_HEADERS = ["session", "last active", "turns", "first message", "summary"]
HISTORY_LIMIT = 5000  # turns read to list sessions (newest first)


def session_rows(turns: Sequence[TurnRecord], summaries: dict[str, str]) -> list[list[Any]]:
    """One row per session, most recent first: when, how many turns, how it began, its summary."""
    by_session: dict[str, list[TurnRecord]] = {}
    for turn in turns:
        by_session.setdefault(turn.session_id, []).append(turn)
    ordered = sorted(by_session.items(), key=lambda kv: max(t.created_at for t in kv[1]), reverse=True)
    rows = []
    for session_id, group in ordered:
        last = time.strftime("%Y-%m-%d %H:%M", time.localtime(max(t.created_at for t in group)))
        first = clip(group[0].user, 80, one_line=True)
        rows.append(
            [session_id, last, len(group), first, clip(summaries.get(session_id, ""), 200, one_line=True)]
        )
    return rows


def summaries_by_session(parts: GuiBackends) -> dict[str, str]:
    """The newest session summary of each session (written at session end)."""
    if parts.memory is None:
        return {}
    found: dict[str, str] = {}
    for record in parts.memory.latest("summaries", 500):
        session = record.metadata.get("session_id")
        if isinstance(session, str) and session not in found:
            found[session] = record.text
    return found


def build_sessions_tab(gr: Any, backend: Any, parts: GuiBackends, chat: ChatTab) -> dict[str, Any]:
    c: dict[str, Any] = {}
    c["refresh"] = gr.Button("Refresh", elem_id="sessions-refresh", size="sm")
    c["table"] = gr.Dataframe(
        headers=SESSION_HEADERS,
        elem_id="sessions",
        interactive=False,
        wrap=True,
        column_widths=["18%", "15%", "7%", "25%", "35%"],
    )
    empty_note(
        gr,
        c["table"],
        "No conversations yet. Each chat you have shows here, to reopen later.",
        "sessions-empty",
    )
    with gr.Row(equal_height=True):
        c["picked"] = gr.Textbox(
            label="Session (click a row)", elem_id="session-id", interactive=False, scale=3
        )
        c["open"] = gr.Button("Open in chat", elem_id="session-open", scale=1)
        c["end"] = gr.Button("Run session-end now", elem_id="session-end", scale=1)
    c["status"] = gr.Markdown("", elem_id="session-status")

    def reload() -> list[list[Any]]:
        return session_rows(backend.history(None, HISTORY_LIMIT), summaries_by_session(parts))

    def open_session(session_id: str, session: GuiChatSession) -> tuple[Any, ...]:
        turns = backend.history(session_id) if session_id else []
        if not turns:
            return gr.skip(), gr.skip(), "⚠ pick a session in the table first"
        if session.cancel is not None:
            return gr.skip(), gr.skip(), "⚠ a reply is still running in the chat: stop it first"
        session.session_id, session.epoch = session_id, session.epoch + 1
        return history_messages(turns), session_id, f"opened {session_id} in the Chat tab"

    async def end_now(session_id: str) -> str:
        if parts.sessions is None:
            return "⚠ session-end processing is not available in this GUI"
        try:
            if not session_id:
                raise UserInputError("pick a session in the table first")
            report = await parts.sessions.end(session_id)
        except DaemonError as error:
            return f"⚠ {error}"
        from ui.shared.payloads import describe_session_end, session_end_line

        if report.get("note"):
            return str(report["note"])
        steps = describe_session_end(report).replace("\n", "  \n")  # the steps, for whoever wants them
        return f"{session_end_line(report)}\n\n<details><summary>Details</summary>\n\n{steps}\n\n</details>"

    c["refresh"].click(reload, None, [c["table"]])
    c["table"].select(row_picker(gr), None, [c["picked"]])
    c["open"].click(open_session, [c["picked"], chat.session], [chat.chatbot, chat.browser_id, c["status"]])
    c["end"].click(end_now, [c["picked"]], [c["status"]])
    c["reload"] = reload
    c["reload_outputs"] = [c["table"]]
    return c
