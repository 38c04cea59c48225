"""A journal with one damaged page, for tests of how reads and commands report it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memory.journal import Journal


def damaged_journal(path: Path) -> Path:
    """Write 150 turns to a journal at `path`, checkpoint it, and overwrite one page of the turns table
    (the header stays intact, so the file still opens and `PRAGMA integrity_check` reports the page)."""
    journal = Journal(path)
    session = journal.new_session()
    for i in range(150):
        journal.complete_turn(journal.begin_turn(session, f"message {i} " + "x" * 300), "y" * 300)
    journal.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[4096 * 5 : 4096 * 6] = b"\xab" * 4096
    path.write_bytes(bytes(data))
    return path
