"""An optional Wikipedia index the user supplies, searched as the `wiki_knowledge` collection.

The folder (`wikipedia.index_dir`) holds two files (docs/knowledge.md):

- `index.faiss`: a FAISS index written by `faiss.write_index`: flat (`IndexFlatIP`, `IndexFlatL2`) or
  IVF-PQ (`IndexIVFPQ`), optionally inside an `IndexIDMap`, of L2-normalised all-MiniLM-L6-v2 vectors
  (384-d). Inner product is read as cosine; L2 as cosine = 1 - d²/2 (unit vectors).
- `metadata.sqlite3`: `passages(id INTEGER PRIMARY KEY, title TEXT NOT NULL, text TEXT NOT NULL, url TEXT)`,
  one row per vector id (the vector's position, or its id in an `IndexIDMap`), and optionally
  `info(key TEXT PRIMARY KEY, value TEXT)` with `embedder` = `all-MiniLM-L6-v2`.
  `write_metadata` writes this file.

Other vectors cannot be compared with Daemon's queries, so an index of another dimension (or whose `info`
names another embedder) is refused with a message saying so. Without a configured folder, or with one that
lacks the files, the source is off: one log line, and every search goes on without it. faiss is imported
when an index is opened, never at module import.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import UserInputError

if TYPE_CHECKING:
    import numpy as np

logger = logging.getLogger(__name__)

INDEX_FILE = "index.faiss"
METADATA_FILE = "metadata.sqlite3"
EMBEDDER = "all-MiniLM-L6-v2"
DIM = 384
WIKI_KNOWLEDGE = "wiki_knowledge"


class WikipediaIndexError(UserInputError):
    """The configured index cannot be used as it is (another embedder, damaged files, no metadata)."""


@dataclass(frozen=True)
class WikiHit:
    """One passage found: its record id, text (title first), metadata and cosine similarity."""

    id: str
    text: str
    metadata: dict[str, Any]
    similarity: float


@dataclass(frozen=True)
class Passage:
    """One row of the metadata file."""

    id: int
    title: str
    text: str
    url: str = ""


def write_metadata(folder: Path, passages: Iterable[Passage], embedder: str = EMBEDDER) -> Path:
    """Write `metadata.sqlite3` in `folder` (the documented format), replacing what it held."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / METADATA_FILE
    db = sqlite3.connect(str(path))
    try:
        with db:
            db.execute("DROP TABLE IF EXISTS passages")
            db.execute("DROP TABLE IF EXISTS info")
            db.execute(
                "CREATE TABLE passages "
                "(id INTEGER PRIMARY KEY, title TEXT NOT NULL, text TEXT NOT NULL, url TEXT)"
            )
            db.execute("CREATE TABLE info (key TEXT PRIMARY KEY, value TEXT)")
            db.executemany(
                "INSERT INTO passages VALUES (?, ?, ?, ?)", [(p.id, p.title, p.text, p.url) for p in passages]
            )
            db.executemany("INSERT INTO info VALUES (?, ?)", [("embedder", embedder), ("dim", str(DIM))])
    finally:
        db.close()
    return path


class WikipediaIndex:
    """A loaded index and its metadata: the `memory.retrieval.CandidateSource` of `wiki_knowledge`."""

    def __init__(self, index: Any, metadata: sqlite3.Connection, folder: Path, *, top_k: int) -> None:
        """Use `WikipediaIndex.open` (it checks the files)."""
        self.folder = folder
        self._index = index
        self._db = metadata
        self._top_k = top_k
        self._lock = threading.Lock()
        self._created_at = (folder / INDEX_FILE).stat().st_mtime
        self._cosine = _cosine_reader(index)

    @classmethod
    def open(cls, folder: Path, *, top_k: int = 20, nprobe: int = 16, dim: int = DIM) -> WikipediaIndex:
        """Load `folder`'s index and metadata, or raise `WikipediaIndexError` saying what is wrong."""
        import faiss

        folder = folder.expanduser()
        index_path, meta_path = folder / INDEX_FILE, folder / METADATA_FILE
        for path in (index_path, meta_path):
            if not path.is_file():
                raise WikipediaIndexError(f"the Wikipedia index folder {folder} has no {path.name}")
        try:
            index = faiss.read_index(str(index_path), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
        except RuntimeError:
            try:
                index = faiss.read_index(str(index_path))
            except RuntimeError as error:
                raise WikipediaIndexError(
                    f"{index_path} is not a FAISS index faiss can read: {error}"
                ) from None
        if index.d != dim:
            raise WikipediaIndexError(
                f"{index_path} holds {index.d}-dimensional vectors, but Daemon's queries are {EMBEDDER} "
                f"vectors ({dim}-d); rebuild the index with {EMBEDDER} embeddings"
            )
        _set_nprobe(faiss, index, nprobe)
        metadata = _open_metadata(meta_path)
        return cls(index, metadata, folder, top_k=top_k)

    def size(self) -> int:
        """Vectors in the index."""
        return int(self._index.ntotal)

    def search(self, query_vector: np.ndarray, k: int) -> list[WikiHit]:
        """The passages nearest to a unit query vector (at most `top_k` of them), most similar first."""
        import numpy as np

        wanted = min(k, self._top_k, self.size())
        if wanted <= 0:
            return []
        query = np.ascontiguousarray(np.asarray(query_vector, dtype=np.float32).reshape(1, -1))
        distances, ids = self._index.search(query, wanted)
        found = [(int(i), float(d)) for i, d in zip(ids[0], distances[0], strict=True) if i >= 0]
        rows = self._passages([i for i, _ in found])
        return [self._hit(rows[i], self._cosine(d)) for i, d in found if i in rows]

    def _passages(self, ids: Sequence[int]) -> dict[int, Passage]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        with self._lock:
            rows = self._db.execute(
                f"SELECT id, title, text, COALESCE(url, '') FROM passages WHERE id IN ({marks})", list(ids)
            ).fetchall()
        return {row[0]: Passage(*row) for row in rows}

    def _hit(self, passage: Passage, similarity: float) -> WikiHit:
        meta: dict[str, Any] = {
            "created_at": self._created_at,
            "source": "wikipedia",
            "external_id": str(passage.id),
            "article_id": str(passage.id),
            "title": passage.title,
            "url": passage.url,
        }
        text = f"{passage.title}\n{passage.text}" if passage.title else passage.text
        return WikiHit(f"wiki_faiss_{passage.id}", text, meta, max(-1.0, min(1.0, similarity)))

    def close(self) -> None:
        """Close the metadata file."""
        with self._lock:
            self._db.close()


def _cosine_reader(index: Any) -> Any:
    """Distance -> cosine for the index's metric (unit vectors): inner product is the cosine already,
    squared L2 is 2 - 2 cos."""
    import faiss

    if index.metric_type == faiss.METRIC_INNER_PRODUCT:
        return lambda d: d
    return lambda d: 1.0 - d / 2.0


def _set_nprobe(faiss: Any, index: Any, nprobe: int) -> None:
    with contextlib.suppress(RuntimeError, AttributeError):  # a flat index has no lists to probe
        faiss.extract_index_ivf(index).nprobe = nprobe


def _open_metadata(path: Path) -> sqlite3.Connection:
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "passages" not in tables:
            db.close()
            raise WikipediaIndexError(f"{path} has no `passages` table (id, title, text, url)")
        info = dict(db.execute("SELECT key, value FROM info").fetchall()) if "info" in tables else {}
    except sqlite3.DatabaseError as error:
        raise WikipediaIndexError(f"{path} is not a readable SQLite file: {error}") from None
    named = info.get("embedder")
    if named and named != EMBEDDER:
        db.close()
        raise WikipediaIndexError(
            f"{path} says its vectors come from {named!r}; Daemon's queries are {EMBEDDER} vectors, "
            f"so rebuild the index with {EMBEDDER} embeddings"
        )
    return db


def load_wikipedia(folder: Path | None, *, top_k: int, nprobe: int) -> WikipediaIndex | None:
    """The configured index, or None: not configured (silent), absent or unusable (one log line each)."""
    if folder is None:
        return None
    if not (folder.expanduser() / INDEX_FILE).is_file():
        logger.info("no Wikipedia index in %s; wiki_knowledge is searched without it", folder)
        return None
    try:
        return WikipediaIndex.open(folder, top_k=top_k, nprobe=nprobe)
    except WikipediaIndexError as error:
        logger.warning("the Wikipedia index is not used: %s", error)
        return None
