"""The chat tab's logic beyond streaming (ui/chat_controller.py): proposals, sources, restoring a session.

No Gradio here. `GuiChatSession` is one browser tab's state; `RecordingBackend` wraps the orchestrator for
one turn so the tab learns the turn's proposals and citations without changing how the turn is streamed.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.events import Done, RunEvent, ToolProposal
from core.ports import TurnRecord
from core.text import clip
from ui import render
from ui.chat_controller import ChatBackend, ChatSession


@dataclass
class GuiChatSession(ChatSession):
    """A browser tab's chat state: the streaming session plus what the last turn proposed and cited."""

    proposals: list[ToolProposal] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)


class RecordingBackend:
    """The orchestrator as `ChatController` sees it, noting one tab's proposals and citations as they pass."""

    def __init__(self, backend: ChatBackend, session: GuiChatSession) -> None:
        self._backend = backend
        self._session = session
        self.default_model = backend.default_model

    @property
    def model_names(self) -> list[str]:
        return self._backend.model_names

    def new_session(self) -> str:
        return self._backend.new_session()

    async def run_turn(self, text: str, **options: Any) -> AsyncIterator[RunEvent]:
        """The backend's events, unchanged; a new turn starts with no proposals and no sources."""
        self._session.proposals.clear()
        self._session.citations = []
        events = self._backend.run_turn(text, **options)
        async with contextlib.aclosing(events):  # type: ignore[type-var]
            async for event in events:
                if isinstance(event, ToolProposal):
                    self._session.proposals.append(event)
                elif isinstance(event, Done):
                    self._session.citations = list(event.citations)
                yield event


def describe_proposal(proposal: ToolProposal) -> str:
    """The approval bar's text: which tool, with which arguments, and what it does (Markdown-safe)."""
    args = json.dumps(proposal.call.arguments, ensure_ascii=False)
    about = proposal.description.splitlines()[0] if proposal.description else ""
    text = f"**Run `{proposal.call.name}`?**  \n`{clip(args, 300, one_line=True)}`"
    if about:
        text += f"  \n{clip(about, 200, one_line=True)}"
    return render.neutralize_remote_media(text)


def source_choices(citations: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """(label, value) pairs for the Sources list: the marker and the cited text, or the link's title."""
    choices = []
    for number, citation in enumerate(citations, start=1):
        marker = citation.get("marker") or str(number)
        label = citation.get("text") or citation.get("title") or citation.get("url") or citation.get("id")
        choices.append((f"[{marker}] {clip(str(label or 'source'), 90, one_line=True)}", str(number - 1)))
    return choices


def history_messages(turns: Sequence[TurnRecord]) -> list[dict[str, Any]]:
    """A stored session as Chatbot messages (rendered as safely as a live turn)."""
    messages: list[dict[str, Any]] = []
    for turn in turns:
        messages.append({"role": "user", "content": render.neutralize_remote_media(turn.user)})
        answer = turn.assistant or f"_{render.exit_notice(turn.status) or 'No answer.'}_"
        messages.append({"role": "assistant", "content": render.neutralize_remote_media(answer)})
    return messages
