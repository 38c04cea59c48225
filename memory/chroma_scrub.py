"""After an explicit purge, the bytes of purged records gone from the embedded Chroma store's files.

Deleting through Chroma's API removes a record from what it returns, not from disk: its text stays in the
write log (`embeddings_queue`, kept until the vector segment is compacted), in free pages of
`chroma.sqlite3`, and in the full-text index's segments. With no client open on the store, this blanks
the log entries of the purged ids (the operations stay, so the vector segment replays to the same state),
merges the full-text index, and rewrites the file without free pages. The vector files hold ids and
numbers, never text. A Chroma server keeps its own files: there the purge removes what the API can.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Collection
from pathlib import Path

from core.errors import StorageError

CHROMA_DB = "chroma.sqlite3"
FULL_TEXT = "embedding_fulltext_search"


def scrub_chroma(store_dir: Path, ids: Collection[str]) -> bool:
    """Scrub the embedded store in `store_dir` (closed) of the purged `ids`; False when there is none."""
    path = store_dir / CHROMA_DB
    if not path.is_file():
        return False
    try:
        with contextlib.closing(sqlite3.connect(str(path), isolation_level=None)) as db:
            db.execute("PRAGMA busy_timeout=10000")
            db.execute("BEGIN IMMEDIATE")
            db.executemany("UPDATE embeddings_queue SET metadata = NULL WHERE id = ?", [(i,) for i in ids])
            db.execute(f"INSERT INTO {FULL_TEXT}({FULL_TEXT}) VALUES ('optimize')")
            db.execute("COMMIT")
            db.execute("VACUUM")
    except sqlite3.Error as error:
        raise StorageError(f"cannot scrub the memory store {path}: {error}") from None
    return True


def files_holding(folder: Path, texts: Collection[str], kept: Collection[str] = ()) -> list[str]:
    """The files under `folder` whose bytes still hold a part of `texts` (UTF-8): the purge's own check.
    A part that `kept` texts also hold (the same place named in a session that stays) is not looked for."""
    still = "\n".join(kept)
    needles = [piece.encode("utf-8") for piece in _pieces(texts) if piece not in still]
    found = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        if any(needle in data for needle in needles):
            found.append(str(path.relative_to(folder)))
    return found


def _pieces(texts: Collection[str], shortest: int = 12) -> set[str]:
    """The parts of `texts` a file would hold verbatim: JSON escapes quotes, backslashes and line breaks,
    so each text is cut at them; parts shorter than `shortest` characters are too common to tell."""
    parts = (part.strip() for text in texts for part in re.split(r'["\\\n\r\t]', text))
    return {part for part in parts if len(part) >= shortest}
