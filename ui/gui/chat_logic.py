"""The chat tab's logic beyond streaming (ui/gui/chat_controller.py): proposals, sources, restoring a session,
files attached in the message box.

No Gradio here. `GuiChatSession` is one browser tab's state; `RecordingBackend` wraps the orchestrator for
one turn so the tab learns the turn's proposals and citations without changing how the turn is streamed,
and hands the turn the images attached to it. `take_attachments` files what the message box carried:
documents through the Documents tab's ingest job (same limits, same errors), images into visual memory.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import DaemonError
from core.events import Done, RunEvent, ToolProposal
from core.ports import TurnRecord
from core.streams import closing_stream
from core.text import clip
from core.types import ImageData
from memory.chat_exports import replied_by
from ui.gui.chat_controller import ChatBackend, ChatSession
from ui.shared import render

if TYPE_CHECKING:
    from ui.gui.documents_tab import DocumentDesk
    from ui.gui.images_tab import ImageDesk


@dataclass
class GuiChatSession(ChatSession):
    """A browser tab's chat state: the streaming session plus what the last turn proposed and cited."""

    proposals: list[ToolProposal] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)
    attached: list[ImageData] = field(default_factory=list)  # images for the next turn's vision model


class RecordingBackend:
    """The orchestrator as `ChatController` sees it, noting one tab's proposals and citations as they pass."""

    def __init__(self, backend: ChatBackend, session: GuiChatSession) -> None:
        self._backend = backend
        self._session = session
        self.default_model = backend.default_model

    @property
    def model_names(self) -> list[str]:
        return self._backend.model_names

    def describe_model(self, name: str) -> str:
        return self._backend.describe_model(name)

    def new_session(self) -> str:
        return self._backend.new_session()

    async def run_turn(self, text: str, **options: Any) -> AsyncIterator[RunEvent]:
        """The backend's events, unchanged; a new turn starts with no proposals and no sources."""
        self._session.proposals.clear()
        self._session.citations = []
        images, self._session.attached = self._session.attached, []  # this turn's only
        if images:  # a backend that takes no images is never asked to
            options["images"] = tuple(images)
        events = self._backend.run_turn(text, **options)
        async with closing_stream(events):
            async for event in events:
                if isinstance(event, ToolProposal):
                    self._session.proposals.append(event)
                elif isinstance(event, Done):
                    self._session.citations = list(event.citations)
                yield event


def describe_proposal(proposal: ToolProposal) -> str:
    """The approval bar's text: what the call would do when the tool says so, else which tool, with which
    arguments, and what it does (Markdown-safe)."""
    if proposal.preview:
        text = f"**{render.markdown_text(clip(proposal.preview, 400, one_line=True))}?**"
        return render.neutralize_remote_media(text)
    args = json.dumps(proposal.call.arguments, ensure_ascii=False)
    about = proposal.description.splitlines()[0] if proposal.description else ""
    text = f"**Run `{proposal.call.name}`?**  \n`{clip(args, 300, one_line=True)}`"
    if about:
        text += f"  \n{clip(about, 200, one_line=True)}"
    return render.neutralize_remote_media(text)


def source_choices(citations: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """(label, value) pairs for the Sources list: the number and where it came from, in words (the user's
    own sentence and day, a document's name), else the cited text or the link's title."""
    choices = []
    for number, citation in enumerate(citations, start=1):
        marker = citation.get("marker") or str(number)
        label = (
            citation.get("label")
            or citation.get("text")
            or citation.get("title")
            or citation.get("url")
            or citation.get("id")
        )
        choices.append((f"[{marker}] {clip(str(label or 'source'), 90, one_line=True)}", str(number - 1)))
    return choices


CUT_SHORT = "This reply was cut short before it finished."


def history_messages(turns: Sequence[TurnRecord]) -> list[dict[str, Any]]:
    """A stored session as Chatbot messages (rendered as safely as a live turn)."""
    messages: list[dict[str, Any]] = []
    for turn in turns:
        messages.append({"role": "user", "content": render.neutralize_remote_media(turn.user)})
        answer = turn.assistant or f"_{render.exit_notice(turn.status) or 'No answer.'}_"
        if turn.assistant and turn.status in ("cancelled", "interrupted"):  # cut short: never as if finished
            answer = f"{turn.assistant}\n\n_{CUT_SHORT}_"
        if (other := replied_by(turn.model)) is not None:  # imported: never shown as Daemon's own words
            answer = f"_{other} replied (imported):_\n\n{answer}"
        messages.append({"role": "assistant", "content": render.neutralize_remote_media(answer)})
    return messages


IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"})


@dataclass
class Attached:
    """What the message box's files became: one line each for the chat, and the images for the model."""

    notes: list[str] = field(default_factory=list)
    images: list[ImageData] = field(default_factory=list)

    def message(self, text: str) -> str:
        """The turn's text: the user's words, then what was attached (so the chat and the journal show it,
        and a model that cannot see images reads their captions)."""
        lines = "\n".join(f"- {note}" for note in self.notes)
        if not self.notes:
            return text
        return f"{text}\n\n{lines}" if text.strip() else f"(attached)\n{lines}"


async def take_attachments(
    paths: Sequence[str], documents: DocumentDesk | None, images: ImageDesk | None
) -> Attached:
    """File each attached path: images into visual memory (and for the model), the rest as documents."""
    attached = Attached()
    for path in paths:
        name = Path(path).name
        if Path(path).suffix.lower() in IMAGE_SUFFIXES:
            await _attach_image(path, images, attached)
        elif documents is None:
            attached.notes.append(f"⚠ {name}: documents are not available in this GUI")
        else:
            attached.notes.append(await _ingest(path, documents))
    return attached


async def _attach_image(path: str, desk: ImageDesk | None, attached: Attached) -> None:
    name = Path(path).name
    if desk is None:
        attached.notes.append(f"⚠ {name}: images are not available in this GUI")
        return
    stored, line = await asyncio.to_thread(desk.add, path)
    if stored is None:
        attached.notes.append(line)
        return
    try:
        attached.images.append(
            await asyncio.to_thread(desk.images.load, Path(stored.path), f"attached: {name}")
        )
    except DaemonError as error:
        attached.notes.append(f"⚠ {name}: {error}")
        return
    attached.notes.append(f"image {name}: {clip(stored.text, 200, one_line=True)}")


async def _ingest(path: str, desk: DocumentDesk) -> str:
    """One document through the Documents tab's recorded ingest job; its line for the chat."""
    name = Path(path).name
    try:
        kept = await asyncio.to_thread(desk.keep_upload, path)
        progress = [step async for step in desk.ingest([kept])]  # the job runs to its end meanwhile
    except DaemonError as error:
        return f"⚠ {name}: {clip(str(error), 200, one_line=True)}"
    errors = await asyncio.to_thread(desk.job_errors, progress[-1].job_id) if progress else []
    if errors:
        return f"⚠ {name}: {clip(errors[0], 200, one_line=True)}"
    return f"document {name}: added to your documents"


def attached_paths(value: str | dict[str, Any] | None) -> list[str]:
    """The files a message-box value carries (a plain string carries none)."""
    if not isinstance(value, dict):
        return []
    return [str(path) for path in value.get("files") or [] if path]


def model_options(backend: ChatBackend) -> list[tuple[str, str]]:
    """The model selector's (label, name) pairs: each model as people know it ("SmolLM2 135M, built in",
    "gpt-4o-mini via openai"), not by its config key."""
    return [(backend.describe_model(name) or name, name) for name in backend.model_names]
