"""Another assistant's conversations brought in as past sessions, through the path a live turn takes.

Each exchange is recorded by `Orchestrator.record_exchange` (journal, memory index, facts through the
verification gate, the graph), dated when the user sent it; the user's words are the only evidence learned
from. Then each imported session gets its session-end steps (summaries, threads, reflection). A session's
id comes from the export's conversation id, so running the same import again skips what is already there
and finishes what was cut short (Ctrl-C, a crash): it resumes, never doubles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from core.clocks import SettableClock
from core.ports import SessionLifecycle, TurnRecord
from memory.chat_exports import EXPORTED, ImportedConversation
from memory.journal import MAX_USER_TEXT

Progress = Callable[[str, int, int], None]  # (what, done, total)
CUT_NOTE = "\n[… cut here by the import: Daemon keeps at most {limit:,} characters of one message]"


class ExchangeRecorder(Protocol):
    """What the import needs of the orchestrator."""

    async def record_exchange(
        self, session_id: str, user: str, assistant: str, *, model: str
    ) -> TurnRecord: ...

    def history(self, session_id: str | None = None, limit: int | None = None) -> list[TurnRecord]: ...


@dataclass
class HistoryImportReport:
    """What a chat-history import did."""

    source: str
    conversations: int = 0
    exchanges_added: int = 0
    exchanges_already_here: int = 0
    messages_cut: int = 0
    sessions_ended: int = 0
    sessions_left: list[str] = field(default_factory=list)  # their session-end steps finish next time


async def import_history(
    source: str,
    conversations: Sequence[ImportedConversation],
    recorder: ExchangeRecorder,
    clock: SettableClock,
    sessions: SessionLifecycle | None,
    *,
    progress: Progress | None = None,
) -> HistoryImportReport:
    """Record every exchange not yet recorded, then end each imported session."""
    step = progress or (lambda what, done, total: None)
    report = HistoryImportReport(source, conversations=len(conversations))
    model = f"{source}{EXPORTED}"  # whose replies; never "import:", whose replies count as people's
    for done, conversation in enumerate(conversations, 1):
        have = len(recorder.history(conversation.session_id))
        report.exchanges_already_here += min(have, len(conversation.exchanges))
        for exchange in conversation.exchanges[have:]:
            user = exchange.user
            if len(user) > MAX_USER_TEXT:
                note = CUT_NOTE.format(limit=MAX_USER_TEXT)
                user = user[: MAX_USER_TEXT - len(note)] + note
                report.messages_cut += 1
            clock.now = exchange.at
            await recorder.record_exchange(conversation.session_id, user, exchange.assistant, model=model)
            report.exchanges_added += 1
        step("conversations", done, len(conversations))
    if sessions is not None:
        await _end_sessions(conversations, sessions, report, step)
    return report


async def _end_sessions(
    conversations: Sequence[ImportedConversation],
    sessions: SessionLifecycle,
    report: HistoryImportReport,
    step: Progress,
) -> None:
    """The session-end steps of every imported session; one already processed at its size does nothing."""
    for done, conversation in enumerate(conversations, 1):
        ended = await sessions.end(conversation.session_id)
        if ended.get("complete"):
            report.sessions_ended += 1
        else:
            report.sessions_left.append(conversation.session_id)
        step("session ends", done, len(conversations))
