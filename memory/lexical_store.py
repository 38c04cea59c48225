"""The persisted lexical index: each document's stemmed tokens, so a start loads them, never re-tokenising.

Tokens are stored as arrays of term ids (one `vocab` table shared by every collection), so start-up reads
one blob per document and builds the BM25 arrays with numpy: about a second for 100k memories, where
re-tokenising the store's texts through the pure-Python stemmer took about a minute.

A document's row keeps its `seq` when it is rewritten, so a reload orders documents as the live index
did (BM25 ties break by insertion order). `meta.tokenizer` names the tokenizer that produced the rows: when
it changes, the rows are stale and the caller rebuilds them from the store.

`meta.clean` is the clean-shutdown marker: written by a clean close (what the store's files and the index
held then), taken out again by the next open, so a process that dies (kill -9, power loss) leaves none
and its successor verifies the index against the store instead of trusting it.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.durable import move_aside
from core.errors import StorageError
from core.sqlite_db import DurableDB, Migration

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

LEXICAL_FILE = "lexical.sqlite3"
# Bump when the tokenizer (stopwords, stemmer, word pattern) changes: persisted tokens are then rebuilt.
TOKENIZER_VERSION = "porter-stopwords-1"
BARE, CONTEXT = "bare", "context"  # the two views of a document (contextual: previous turn + turn)
CLEAN_KEY = "clean"  # meta key of the clean-shutdown marker

LEXICAL_MIGRATIONS: list[Migration] = [
    (
        "lexical-1",
        """
        CREATE TABLE vocab (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
        CREATE TABLE docs (
            seq INTEGER PRIMARY KEY, collection TEXT NOT NULL, view TEXT NOT NULL, doc_id TEXT NOT NULL,
            tokens BLOB NOT NULL, UNIQUE (collection, view, doc_id)
        );
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)
        """,
    )
]


@dataclass(frozen=True)
class LoadedView:
    """The persisted documents of one (collection, view), in insertion order."""

    collection: str
    view: str
    docs: list[tuple[str, np.ndarray]]  # (doc_id, int32 term ids)


class LexicalStore:
    """The token rows of every collection's lexical index in one durable SQLite file."""

    def __init__(self, path: Path) -> None:
        """Open (creating) the file; a damaged one raises `StorageError` (the caller moves it aside)."""
        self._db = DurableDB(path, LEXICAL_MIGRATIONS, what="lexical index")
        self.path = path
        self._term_ids: dict[str, int] = {}
        self._vocab: list[str] = []

    def check(self) -> None:
        """Read the whole file once (`quick_check`): damage surfaces here, at start-up, not mid-answer."""
        result = self._db.rows("PRAGMA quick_check")
        if result != [("ok",)]:
            raise StorageError(f"the lexical index at {self.path} is damaged: {result[:3]}")

    def tokenizer(self) -> str | None:
        """The tokenizer version the rows were written with (None for a new file)."""
        found = self._db.rows("SELECT value FROM meta WHERE key = 'tokenizer'")
        return str(found[0][0]) if found else None

    def reset(self, tokenizer: str) -> None:
        """Forget every row (stale tokens): the caller rebuilds from the store."""
        with self._db.write() as db:
            db.execute("DELETE FROM docs")
            db.execute("DELETE FROM vocab")
            db.execute("DELETE FROM meta WHERE key = ?", (CLEAN_KEY,))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('tokenizer', ?)", (tokenizer,))
        self._term_ids.clear()
        self._vocab.clear()

    def take_clean_marker(self) -> dict[str, Any] | None:
        """The marker the last clean close left (None: none, or unreadable), removed in the same durable
        transaction: from here on, until the next clean close, a crash leaves no marker behind."""
        with self._db.write() as db:
            found = db.execute("SELECT value FROM meta WHERE key = ?", (CLEAN_KEY,)).fetchall()
            db.execute("DELETE FROM meta WHERE key = ?", (CLEAN_KEY,))
        if not found:
            return None
        try:
            marker = json.loads(found[0][0])
        except ValueError:
            return None
        return marker if isinstance(marker, dict) else None

    def mark_clean(self, marker: dict[str, Any]) -> None:
        """Record a clean close: `marker` says what the store and this index held (the last write)."""
        with self._db.write() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (CLEAN_KEY, json.dumps(marker)))

    def load(self) -> tuple[list[str], list[LoadedView]]:
        """The vocabulary (id -> term) and every view's documents."""
        import numpy as np

        vocab_rows = self._db.rows("SELECT id, term FROM vocab ORDER BY id")
        vocab: list[str] = [""] * (vocab_rows[-1][0] + 1 if vocab_rows else 0)
        for term_id, term in vocab_rows:
            vocab[term_id] = term
        self._vocab = vocab
        self._term_ids = {term: term_id for term_id, term in vocab_rows}
        views: dict[tuple[str, str], list[tuple[str, np.ndarray]]] = {}
        for collection, view, doc_id, blob in self._db.rows(
            "SELECT collection, view, doc_id, tokens FROM docs ORDER BY seq"
        ):
            views.setdefault((collection, view), []).append((doc_id, np.frombuffer(blob, dtype="<i4")))
        return vocab, [LoadedView(c, v, docs) for (c, v), docs in views.items()]

    def put(self, collection: str, rows: Sequence[tuple[str, str, Sequence[str]]]) -> None:
        """Write (view, doc_id, tokens) rows in one transaction; a known id keeps its place in the order."""
        import numpy as np

        if not rows:
            return
        new_terms = sorted({t for _, _, tokens in rows for t in tokens if t not in self._term_ids})
        added = {term: len(self._vocab) + offset for offset, term in enumerate(new_terms)}
        ids = {**self._term_ids, **added} if added else self._term_ids
        with self._db.write() as db:
            db.executemany("INSERT INTO vocab (id, term) VALUES (?, ?)", [(i, t) for t, i in added.items()])
            db.executemany(
                "INSERT INTO docs (collection, view, doc_id, tokens) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (collection, view, doc_id) DO UPDATE SET tokens = excluded.tokens",
                [
                    (collection, view, doc_id, np.asarray([ids[t] for t in tokens], dtype="<i4").tobytes())
                    for view, doc_id, tokens in rows
                ],
            )
        # only after the commit: a rolled-back transaction must not leave ids that were never stored
        self._term_ids.update(added)
        self._vocab.extend(new_terms)

    def remove(self, collection: str, doc_ids: Iterable[str]) -> None:
        """Delete documents (every view) in one transaction."""
        wanted = list(doc_ids)
        if not wanted:
            return
        with self._db.write() as db:
            db.executemany(
                "DELETE FROM docs WHERE collection = ? AND doc_id = ?", [(collection, d) for d in wanted]
            )

    def compact(self) -> None:
        """Rewrite the file without the free pages an explicit purge left (they still hold its terms)."""
        self._db.compact()

    def close(self) -> None:
        self._db.close()


def open_lexical_store(path: Path) -> LexicalStore:
    """Open the persisted index, checked; a damaged file is moved aside (never deleted) and a new one made.
    A new, replaced or stale-tokenizer file holds no rows, so `MemoryService.open` re-indexes the store."""
    try:
        store = LexicalStore(path)
    except (StorageError, sqlite3.DatabaseError) as error:
        return _replace_damaged(path, error)
    try:
        store.check()
        version = store.tokenizer()
    except (StorageError, sqlite3.DatabaseError) as error:
        store.close()
        return _replace_damaged(path, error)
    if version != TOKENIZER_VERSION:
        store.reset(TOKENIZER_VERSION)  # stale tokens (or a new file): rebuilt from the store
    return store


def _replace_damaged(path: Path, error: BaseException) -> LexicalStore:
    moved = move_aside(path)
    logger.warning(
        "the lexical index %s is damaged (%s); moved to %s, rebuilding it from the store", path, error, moved
    )
    store = LexicalStore(path)
    store.reset(TOKENIZER_VERSION)
    return store
