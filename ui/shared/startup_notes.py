"""What Daemon repaired or noticed while it started, for a front end whose user never sees stderr.

A damaged file set aside, a graph recovered from its backup, facts re-learned into the graph, an index
rebuilt: each is logged as a warning where it happens. `StartupNotes` is a logging handler the GUI command
attaches while the services are built and interrupted work resumes; the GUI then shows what it caught above
the chat, so the person is told, not only the log.
"""

from __future__ import annotations

import html
import logging

from core.text import clip

DAEMON_PACKAGES = frozenset({"app", "core", "memory", "knowledge"})  # not third-party libraries' warnings
MAX_NOTES = 5
NOTE_CHARS = 300


class StartupNotes(logging.Handler):
    """Collects the warnings Daemon's own modules log while attached (`attach` … `detach`)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._notes: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.split(".", 1)[0] not in DAEMON_PACKAGES:
            return
        # escaped: a message may quote a name a client chose (a session id), and the page renders markdown
        note = html.escape(clip(record.getMessage(), NOTE_CHARS, one_line=True))
        if note not in self._notes and len(self._notes) < MAX_NOTES:
            self._notes.append(note)

    def attach(self) -> StartupNotes:
        logging.getLogger().addHandler(self)
        return self

    def detach(self) -> None:
        logging.getLogger().removeHandler(self)

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(self._notes)

    def text(self) -> str | None:
        """The markdown to show, or None when nothing was noted."""
        if not self._notes:
            return None
        lines = "\n".join(f"- {note}" for note in self._notes)
        return f"While starting, Daemon repaired or noticed (details in `daemon.log`):\n{lines}"
