"""What an export archive holds and where inside it.

An archive is a zip file:

    manifest.json                       format, version, counts and the SHA-256 of every other entry
    README.md                           what is inside, for a person opening it
    databases/<file>.sqlite3            each SQLite file, a consistent snapshot (open with any SQLite tool)
    collections/<name>.jsonl            each memory collection: one {"id", "text", "metadata"} a line
    collections/<name>.vectors.npy      the same records' vectors, in the same order (float32)
    files/<path>                        the user's files (uploads, the knowledge graph, personality.md)
    readable/conversations.md           every session, as said
    readable/facts.md                   every fact, current and superseded
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import UserInputError

FORMAT = "daemon-export"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
README = "README.md"
DATABASES = "databases"
COLLECTIONS = "collections"
FILES = "files"
READABLE = "readable"
TOP_LEVEL = (DATABASES, COLLECTIONS, FILES, READABLE)
VECTORS_SUFFIX = ".vectors.npy"
RECORDS_SUFFIX = ".jsonl"

FileMerge = Callable[[Path, Path], int]  # (the archived copy, the data dir's file) -> how much it added


class ArchiveError(UserInputError):
    """An archive Daemon will not import (damaged, foreign, newer, unsafe); the data dir is untouched."""


@dataclass(frozen=True)
class ArchiveLayout:
    """Which of a data dir's files an archive holds; the composition root names them (memory and knowledge
    each own some, and neither imports the other).

    `databases`: SQLite files, snapshotted through SQLite's backup API and merged row by row. `files`:
    single files, copied; one with an entry in `merges` is merged with the data dir's own copy by it,
    otherwise the data dir's copy is kept. `folders`: the user's file folders (uploads), copied file by file.
    """

    databases: tuple[str, ...]
    files: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    merges: Mapping[str, FileMerge] = field(default_factory=dict)


def collection_entries(name: str) -> tuple[str, str]:
    """The archive's records entry and vectors entry of one collection."""
    return f"{COLLECTIONS}/{name}{RECORDS_SUFFIX}", f"{COLLECTIONS}/{name}{VECTORS_SUFFIX}"
