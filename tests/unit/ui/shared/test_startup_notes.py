"""StartupNotes: Daemon's own warnings while starting, kept for the page; nothing else."""

from __future__ import annotations

import logging

from ui.shared.startup_notes import MAX_NOTES, StartupNotes


def test_daemons_own_warnings_are_kept_once_and_escaped_and_others_are_not() -> None:
    notes = StartupNotes().attach()
    try:
        graph = logging.getLogger("knowledge.service")
        graph.warning("the knowledge graph was behind; re-learned %d fact(s)", 2)
        graph.warning("the knowledge graph was behind; re-learned %d fact(s)", 2)
        logging.getLogger("memory.chroma_store").warning("session <img src=x onerror=alert(1)> was damaged")
        logging.getLogger("memory.chroma_store").info("an ordinary day")
        logging.getLogger("chromadb.telemetry").warning("a library's own warning")
    finally:
        notes.detach()
    logging.getLogger("knowledge.service").warning("after the start: not a start-up note")
    assert notes.notes == (
        "the knowledge graph was behind; re-learned 2 fact(s)",
        "session &lt;img src=x onerror=alert(1)&gt; was damaged",
    )
    text = notes.text()
    assert text is not None and text.startswith("While starting, Daemon repaired or noticed")
    assert "- the knowledge graph was behind" in text


def test_nothing_noted_shows_nothing_and_a_flood_is_capped() -> None:
    assert StartupNotes().text() is None
    notes = StartupNotes().attach()
    try:
        for number in range(20):
            logging.getLogger("memory.lexical_store").warning("damaged file %d set aside", number)
    finally:
        notes.detach()
    assert len(notes.notes) == MAX_NOTES
