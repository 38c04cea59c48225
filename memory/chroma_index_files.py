"""The files of an embedded Chroma store's vector indexes, checked before Chroma opens them.

Chroma keeps each collection's HNSW index in a folder named by its vector segment's id: `header.bin` (a
version, then the sizes hnswlib needs: element count, bytes per element…), `data_level0.bin` (every
element's vector and links, `count × bytes per element`), `length.bin` (4 bytes per element) and
`link_lists.bin`. Chroma's native code trusts these sizes: a `data_level0.bin` cut short (a crash mid-flush,
a full disk) makes it read past the end and the whole process dies with SIGSEGV. So the sizes are checked
here first, from the files alone; a folder that fails is moved aside (kept, never deleted) and its
collection named, for the store to rebuild (memory/chroma_store.py).
"""

from __future__ import annotations

import logging
import sqlite3
import struct
from pathlib import Path

from core.durable import move_aside

logger = logging.getLogger(__name__)

HEADER = struct.Struct("<i6Q")  # version, offsetLevel0, max elements, element count, bytes per element, …
HEADER_BYTES = 100
LENGTH_BYTES_PER_ELEMENT = 4
SQLITE_FILE = "chroma.sqlite3"


def index_problem(segment: Path) -> str | None:
    """What is wrong with one vector index folder's files, or None when their sizes agree."""
    header = segment / "header.bin"
    if not header.exists():
        return None  # nothing persisted yet: Chroma rebuilds the index from its log
    raw = header.read_bytes()
    if len(raw) < HEADER_BYTES:
        return f"header.bin has {len(raw)} bytes, not {HEADER_BYTES}"
    version, _, most, count, per_element, _, _ = HEADER.unpack_from(raw)
    if version != 1 or not 0 < per_element < 1 << 20 or count > most:
        return "header.bin does not read as an index header"
    for name, needed in (
        ("data_level0.bin", count * per_element),
        ("length.bin", count * LENGTH_BYTES_PER_ELEMENT),
    ):
        path = segment / name
        size = path.stat().st_size if path.exists() else 0
        if size < needed:
            return f"{name} has {size:,} bytes where {count:,} elements need {needed:,}"
    return None


def set_aside_damaged_indexes(folder: Path, segments: dict[str, str]) -> dict[str, str]:
    """Check the vector index folders `segments` ({segment id: collection}) of the store in `folder`,
    before any client opens them; move each damaged one aside and return {collection: what was wrong} for
    the store to rebuild."""
    found: dict[str, str] = {}
    for segment, collection in segments.items():
        path = folder / segment
        problem = index_problem(path) if path.is_dir() else None
        if problem is None:
            continue
        kept = move_aside(path)
        logger.warning("the vector index of %s is damaged (%s); moved it to %s", collection, problem, kept)
        found[collection] = problem
    return found


def vector_segments(folder: Path) -> dict[str, str]:
    """{vector segment id (its folder's name): collection name}, read from Chroma's SQLite file; read it
    before a client opens the store (another connection beside a live client may read a torn page)."""
    if not (folder / SQLITE_FILE).is_file():
        return {}
    try:
        db = sqlite3.connect(f"file:{folder / SQLITE_FILE}?mode=ro", uri=True)
        try:
            rows = db.execute(
                "SELECT s.id, c.name FROM segments s JOIN collections c ON c.id = s.collection "
                "WHERE s.scope = 'VECTOR'"
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error as error:  # Chroma itself reports a store it cannot read
        logger.warning("cannot list the vector indexes in %s: %s", folder, error)
        return {}
    return {str(segment): str(name) for segment, name in rows}
