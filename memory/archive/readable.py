"""The archive's Markdown pages: every conversation as said and every fact, read from the snapshots, so a
person can read their data without Daemon or a SQLite tool."""

from __future__ import annotations

import contextlib
import sqlite3
from datetime import UTC, datetime
from pathlib import Path


def _when(at: float | None) -> str:
    if at is None:
        return ""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines() or [""])


def conversations_page(journal: Path) -> str:
    """Every session of a journal snapshot, oldest first, each turn as the user and Daemon said it."""
    lines = ["# Conversations", ""]
    with contextlib.closing(sqlite3.connect(f"{journal.resolve().as_uri()}?mode=ro", uri=True)) as db:
        rows = db.execute(
            "SELECT s.session_id, t.seq, t.user_text, t.assistant_text, t.status, t.created_at "
            "FROM turns t JOIN sessions s ON s.session_id = t.session_id "
            "ORDER BY s.created_at, s.session_id, t.seq"
        ).fetchall()
    session = None
    for session_id, seq, user, assistant, status, created_at in rows:
        if session_id != session:
            session = session_id
            lines += [f"## Session {session_id} ({_when(created_at)})", ""]
        lines += [f"**You** ({_when(created_at)}, turn {seq}):", "", _quoted(user), ""]
        answer = assistant or f"(no answer: {status})"
        lines += ["**Daemon:**", "", _quoted(answer), ""]
    if session is None:
        lines.append("No conversations yet.")
    return "\n".join(lines) + "\n"


def facts_page(facts: Path) -> str:
    """Every fact of a facts snapshot: current ones first, each with where it came from."""
    lines = [
        "# Facts",
        "",
        "| status | subject | relation | value | since | from |",
        "|---|---|---|---|---|---|",
    ]
    with contextlib.closing(sqlite3.connect(f"{facts.resolve().as_uri()}?mode=ro", uri=True)) as db:
        rows = db.execute(
            "SELECT status, subject, relation, object, created_at, excerpt FROM facts "
            "ORDER BY status = 'current' DESC, subject, relation, created_at"
        ).fetchall()
    for status, subject, relation, value, created_at, excerpt in rows:
        cells = (status, subject, relation, value, _when(created_at), f"“{excerpt}”" if excerpt else "")
        lines.append("| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    if not rows:
        lines.append("| | no facts yet | | | | |")
    return "\n".join(lines) + "\n"
