"""The Chroma `VectorStore`: embedded (`PersistentClient`) by default, or a Chroma server (`HttpClient`).

Chroma must never embed with its default function: it downloads an ONNX model and fails offline. So the
store always passes its own embeddings, and every collection is created with `DaemonEmbeddingFunction`
(registered with chromadb under `EMBEDDING_FUNCTION_NAME`) so even a documents-only call made on one of our
collections embeds with our model. When chromadb rebuilds that function from a collection's stored
configuration (another process, a raw client), the rebuilt one has no model and refuses to embed.

Collections use cosine space; each records the embedder's name and dimension, and opening it with a
different embedder is refused rather than mixing vector spaces. Telemetry is off.

Chroma loads a collection's vector index on the first read of it, holding the GIL, and replays into it
every write logged since the index was last persisted. It persists every `sync_threshold` writes (1,000 by
default: 0.15 s of replay per collection at start for a 100k store, most of the start-up). Collections here
persist every `VECTOR_SYNC_THRESHOLD` writes instead (set on older collections when they are opened), and
an embedded store can `warm` them in a background thread. It also reports a digest of its files as found
before opening and as left after closing (`opened_state`, `closed_state`): equal digests across a restart
mean nothing touched the store in between.

A vector index Chroma cannot load or read (a damaged `header.bin` or `index_metadata.pickle`: "Error
loading hnsw index"; a `data_level0.bin` cut short: "Error finding id") is rebuilt, once, by the first
operation that meets it (the background warm-up, as a rule): its folder is moved aside (kept, never
deleted), which lets Chroma read the collection's texts and metadata from its SQLite file again; they are
saved beside the store (`<collection>.rebuilding.jsonl`), the collection is dropped, made again and
refilled with vectors embedded as live writes embed them (`embed_for_rebuild`), and the saved file goes. A
rebuild cut short by a crash resumes from that file on the next use. Then the operation runs again; the
log says what happened. (A segment folder deleted outright goes unnoticed: Chroma then answers from the
vectors its log still holds without an error.)
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from core.durable import atomic_write, move_aside
from core.errors import DaemonError, StorageError
from memory.chroma_index_files import set_aside_damaged_indexes, vector_segments
from memory.collections import CollectionSpec, validate_collection_name, validate_metadata
from memory.vector_store import (
    Hit,
    Record,
    UnknownCollectionError,
    Where,
    checked_embeddings,
    dedupe_records,
    normalise_where,
)

if TYPE_CHECKING:
    import numpy as np

    from memory.embeddings import Embedder

logger = logging.getLogger(__name__)

EMBEDDING_FUNCTION_NAME = "daemon-embedder"
WARM_PAUSE_S = 0.05  # between two collections' loads: the front end gets the GIL back in between
# Writes between two persists of a collection's vector index: at most this many are replayed when a
# process first reads the collection. A persist writes only the changed vectors (~20-50 ms here).
VECTOR_SYNC_THRESHOLD = 100
# Chroma's errors when a collection's vector index cannot be loaded ("Error loading hnsw index", a pickle it
# cannot read: both inside "Error creating hnsw segment reader") or lacks records its metadata has (a file
# cut short or gone: "Error finding id", "Error getting embedding").
_DAMAGED_INDEX = re.compile(
    r"hnsw segment reader|loading hnsw index|error finding id|error getting embedding", re.IGNORECASE
)
# `<collection>.rebuilding.jsonl` in the store's folder: the records of a rebuild under way
REBUILD_SUFFIX = ".rebuilding.jsonl"
REBUILD_BATCH = 256
_T = TypeVar("_T")


class ChromaStore:
    """`VectorStore` on chromadb. Build it with `ChromaStore.embedded(...)` or `ChromaStore.http(...)`."""

    def __init__(
        self,
        client: Any,
        embedder: Embedder,
        *,
        where: str,
        batch_size: int = 256,
        folder: Path | None = None,
        opened_state: str | None = None,
    ) -> None:
        """`folder` is the embedded store's directory (None for a server), `opened_state` the digest of
        its files taken before `client` opened them."""
        self.embedder = embedder
        self._client = client
        self._where = where
        self._batch_size = max(1, min(batch_size, _max_batch(client)))
        self._function = embedding_function(embedder)
        self._collections: dict[str, tuple[CollectionSpec, Any]] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._folder = folder
        self._opened_state = opened_state
        self._closed_state: str | None = None
        self._stop_warming = threading.Event()
        self._warmer: threading.Thread | None = None
        # How a rebuild embeds a collection's records (the memory service's live-write rule: a turn is
        # embedded with the turn before it); None: each record's text alone.
        self.embed_for_rebuild: Callable[[str, Sequence[Record]], np.ndarray] | None = None
        # Reentrant: a rebuild's own reads (the live-write rule reads earlier turns) pass through `_run`.
        self._rebuilding = threading.RLock()
        self._rebuilding_now: set[str] = set()
        self._rebuilt: set[str] = set()
        self._segments: dict[str, str] = {}  # collection -> its vector index folder, read before opening
        self._damaged: dict[str, str] = {}  # collection -> what was wrong with its index files at opening

    @classmethod
    def embedded(cls, path: Path | str, embedder: Embedder, *, batch_size: int = 256) -> ChromaStore:
        """A store in a local directory (one process per directory: hold `memory.lock.DataDirLock`)."""
        import chromadb
        from chromadb.config import Settings

        folder = Path(path)
        folder.mkdir(parents=True, exist_ok=True)
        found = files_state(folder)  # before the client: opening (and every first read) touches the files
        segments = vector_segments(folder)
        damaged = set_aside_damaged_indexes(folder, segments)  # Chroma would crash on some of them
        try:
            client = chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))
        except Exception as error:
            raise StorageError(f"cannot open the Chroma store at {path}: {error}") from error
        store = cls(
            client, embedder, where=str(path), batch_size=batch_size, folder=folder, opened_state=found
        )
        store._segments = {collection: segment for segment, collection in segments.items()}
        cut_short = {p.name.removesuffix(REBUILD_SUFFIX) for p in folder.glob(f"*{REBUILD_SUFFIX}")}
        store._damaged = dict.fromkeys(cut_short, "a rebuild was cut short") | damaged
        return store

    @classmethod
    def http(
        cls, host: str, port: int, embedder: Embedder, *, ssl: bool = False, batch_size: int = 256
    ) -> ChromaStore:
        """A store on a Chroma server (`chroma run --path P --port N`, or the docker-compose service)."""
        import chromadb
        from chromadb.config import Settings

        try:
            client = chromadb.HttpClient(
                host=host, port=port, ssl=ssl, settings=Settings(anonymized_telemetry=False)
            )
        except Exception as error:
            raise StorageError(f"cannot reach the Chroma server at {host}:{port}: {error}") from error
        return cls(client, embedder, where=f"{host}:{port}", batch_size=batch_size)

    def ensure_collections(self, specs: Sequence[CollectionSpec]) -> None:
        """Open or create each collection (cosine space, our embedding function) and check its embedder."""
        for spec in specs:
            validate_collection_name(spec.name)
            with self._translate(f"open collection {spec.name}"):
                handle = self._client.get_or_create_collection(
                    spec.name,
                    embedding_function=self._function,
                    # a new dict each time: chromadb mutates it
                    configuration={"hnsw": {"space": "cosine", "sync_threshold": VECTOR_SYNC_THRESHOLD}},
                    metadata={"tier": spec.tier, "embedder": self.embedder.name, "dim": self.embedder.dim},
                )
            self._check_embedder(spec.name, handle.metadata or {})
            self._tune(spec.name, handle)
            with self._lock:
                self._collections[spec.name] = (spec, handle)

    def _check_embedder(self, name: str, stored: dict[str, Any]) -> None:
        embedder, dim = stored.get("embedder"), stored.get("dim")
        if (embedder, dim) != (self.embedder.name, self.embedder.dim):
            raise StorageError(
                f"collection {name!r} in {self._where} holds vectors of embedder {embedder!r} (dim {dim}), "
                f"but the configured embedder is {self.embedder.name!r} (dim {self.embedder.dim}); "
                "use the original embedder or re-index into a new data directory"
            )

    def _tune(self, name: str, handle: Any) -> None:
        """Give a collection created with chromadb's defaults our persist interval (its next first read
        then replays and persists what it had logged, once)."""
        hnsw = (getattr(handle, "configuration_json", None) or {}).get("hnsw") or {}
        if hnsw.get("sync_threshold", VECTOR_SYNC_THRESHOLD) != VECTOR_SYNC_THRESHOLD:
            with self._translate(f"configure collection {name}"):
                handle.modify(configuration={"hnsw": {"sync_threshold": VECTOR_SYNC_THRESHOLD}})

    def upsert(
        self, collection: str, records: Sequence[Record], embeddings: np.ndarray | None = None
    ) -> None:
        """Insert or replace records by id, in batches; always with our own embeddings.

        Records whose text and metadata (and given vector) equal what is stored are skipped: Chroma
        rewrites an existing record several times slower than it inserts one, and replays are common.
        """
        spec, _ = self._collection(collection)
        given: dict[str, Any] | None = None
        if embeddings is not None:
            array = checked_embeddings(embeddings, len(records), self.embedder.dim, collection)
            given = {record.id: vector for record, vector in zip(records, array, strict=True)}
        unique = dedupe_records(records)
        cleaned = [Record(item.id, item.text, validate_metadata(spec, item.metadata)) for item in unique]
        for start in range(0, len(cleaned), self._batch_size):
            batch = cleaned[start : start + self._batch_size]
            self._run(
                collection,
                f"write to {collection}",
                functools.partial(self._write_batch, batch=batch, given=given),
            )

    def _write_batch(self, handle: Any, batch: list[Record], given: dict[str, Any] | None) -> None:
        include = (
            ["documents", "metadatas", "embeddings"] if given is not None else ["documents", "metadatas"]
        )
        stored = handle.get(ids=[record.id for record in batch], include=include)
        previous = _stored_rows(stored, given is not None)
        changed = [record for record in batch if _differs(record, previous.get(record.id), given)]
        if not changed:
            return
        if given is not None:
            vectors = [given[record.id] for record in changed]
        else:
            texts = [record.text for record in changed]
            vectors = list(
                checked_embeddings(self.embedder.embed(texts), len(texts), self.embedder.dim, handle.name)
            )
        metadatas = []
        for record in changed:
            old = previous[record.id][1] if record.id in previous else {}
            # Chroma's upsert merges metadata; a key missing from the new record must be set to None.
            metadatas.append({**dict.fromkeys(old), **record.metadata} or None)
        handle.upsert(
            ids=[record.id for record in changed],
            embeddings=vectors,
            documents=[record.text for record in changed],
            metadatas=metadatas,
        )

    def query(
        self, collection: str, query_embedding: np.ndarray, k: int, where: Where | None = None
    ) -> list[Hit]:
        """The `k` nearest records by cosine distance, most similar first."""
        clause = normalise_where(where)
        vector = checked_embeddings(query_embedding, 1, self.embedder.dim, f"query on {collection}")[0]
        if k <= 0:
            return []
        result = self._run(
            collection,
            f"query {collection}",
            lambda handle: handle.query(
                query_embeddings=[vector],
                n_results=k,
                where=clause,
                include=["documents", "metadatas", "distances"],
            ),
        )
        ids = result["ids"][0] if result["ids"] else []
        documents = _column(result, "documents", len(ids))
        metadatas = _column(result, "metadatas", len(ids))
        distances = _column(result, "distances", len(ids))
        hits = [
            Hit(ids[i], collection, documents[i] or "", dict(metadatas[i] or {}), float(distances[i]))
            for i in range(len(ids))
        ]
        return sorted(hits, key=lambda hit: hit.distance)

    def get(
        self,
        collection: str,
        ids: Sequence[str] | None = None,
        where: Where | None = None,
        limit: int | None = None,
    ) -> list[Record]:
        """Records by id (in the order asked, missing ids skipped) and/or by filter, at most `limit`."""
        clause = normalise_where(where)
        if ids is not None and not ids:
            return []
        asked = list(dict.fromkeys(ids)) if ids is not None else None
        result = self._run(
            collection,
            f"read {collection}",
            lambda handle: handle.get(
                ids=asked, where=clause, limit=None if asked else limit, include=["documents", "metadatas"]
            ),
        )
        rows = {
            record_id: Record(record_id, text or "", dict(metadata or {}))
            for record_id, text, metadata in zip(
                result["ids"], result["documents"], result["metadatas"], strict=True
            )
        }
        records = [rows[i] for i in asked if i in rows] if asked is not None else list(rows.values())
        return records[: max(limit, 0)] if limit is not None else records

    def get_with_vectors(
        self, collection: str, ids: Sequence[str] | None = None, where: Where | None = None
    ) -> list[tuple[Record, np.ndarray]]:
        """Records with their stored vectors in one read: by id (missing or filtered-out ids skipped), or
        every record when `ids` is None."""
        import numpy as np

        if ids is not None and not ids:
            return []
        result = self._run(
            collection,
            f"read {collection}",
            lambda handle: handle.get(
                ids=list(dict.fromkeys(ids)) if ids is not None else None,
                where=normalise_where(where),
                include=["documents", "metadatas", "embeddings"],
            ),
        )
        rows = zip(result["ids"], result["documents"], result["metadatas"], result["embeddings"], strict=True)
        return [
            (Record(record_id, text or "", dict(meta or {})), np.asarray(vector, dtype=np.float32))
            for record_id, text, meta, vector in rows
        ]

    def count(self, collection: str) -> int:
        """Number of records in one collection."""
        return int(self._run(collection, f"count {collection}", lambda handle: handle.count()))

    def counts(self) -> dict[str, int]:
        """Number of records per open collection."""
        with self._lock:
            names = list(self._collections)
        return {name: self.count(name) for name in names}

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Remove records by id. Only for explicit user requests (`purge`); nothing calls it automatically."""
        if not ids:
            return
        self._run(collection, f"delete from {collection}", lambda handle: handle.delete(ids=list(ids)))

    def warm(self, collections: Sequence[str]) -> None:
        """Load each collection's index in a background thread, one after another with a pause between
        (chromadb holds the GIL while it loads), so the first search finds them loaded. A server keeps
        its own collections loaded: nothing to do. `close` stops the thread and waits for it."""
        with self._lock:
            if self._folder is None or self._closed or self._warmer is not None:
                return
            self._warmer = threading.Thread(
                target=self._warm, args=(list(collections),), name="chroma-warm", daemon=True
            )
            self._warmer.start()

    def _warm(self, names: list[str]) -> None:
        for name in names:
            if self._stop_warming.wait(WARM_PAUSE_S):
                return
            try:
                self.count(name)  # any read loads the collection's segments
            except DaemonError as error:  # the first real read reports it where it matters
                logger.debug("warming %s failed: %s", name, error)

    def opened_state(self) -> str | None:
        """Digest of the embedded store's files before this process opened them (None for a server)."""
        return self._opened_state

    def closed_state(self) -> str | None:
        """Digest of the embedded store's files as `close` left them (None before, or for a server)."""
        return self._closed_state

    def close(self) -> None:
        """Stop warming, release the client (for an embedded store: its SQLite files and index handles),
        then take the digest of the files as they are left."""
        self._stop_warming.set()
        with self._lock:
            warmer = self._warmer
        if warmer is not None:
            warmer.join()  # at most the one load in progress
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._collections.clear()
        close = getattr(self._client, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                close()
        if self._folder is not None:
            self._closed_state = files_state(self._folder)

    def _collection(self, name: str) -> tuple[CollectionSpec, Any]:
        with self._lock:
            if self._closed:
                raise StorageError("the vector store is closed")
            found = self._collections.get(name)
            known = ", ".join(sorted(self._collections)) or "none"
        if found is None:
            validate_collection_name(name)
            raise UnknownCollectionError(f"collection {name!r} is not open (open collections: {known})")
        return found

    def _run(self, collection: str, action: str, work: Callable[[Any], _T]) -> _T:
        """`work(handle)` with Chroma's errors as `StorageError`; a vector index Chroma cannot load is
        rebuilt once (see the module docstring), then `work` runs again."""
        if collection in self._damaged:  # found at opening, or a rebuild in this process cut short
            self._rebuild(collection, self._damaged[collection])
        _, handle = self._collection(collection)
        try:
            with self._translate(action):
                return work(handle)
        except StorageError as error:
            if self._folder is None or not _DAMAGED_INDEX.search(str(error.__cause__ or "")):
                raise
            reason = str(error.__cause__)
        self._rebuild(collection, reason)
        _, handle = self._collection(collection)
        with self._translate(action):
            return work(handle)

    def _rebuild(self, collection: str, reason: str) -> None:
        """Rebuild the collection from its stored records (once per process; a concurrent caller waits
        for it and then finds it done). The records are saved beside the store before the collection is
        dropped and made again, so a rebuild cut short resumes from them."""
        assert self._folder is not None  # an embedded store's index only
        with self._rebuilding:
            saved = self._folder / f"{collection}{REBUILD_SUFFIX}"
            if collection in self._rebuilding_now or (collection in self._rebuilt and not saved.exists()):
                return  # a read of the rebuild itself, or done by another thread meanwhile
            self._rebuilding_now.add(collection)
            try:
                records = self._save_and_refill(collection, saved, reason)
            except BaseException:
                self._damaged[collection] = "a rebuild was cut short"  # the next use resumes it
                raise
            finally:
                self._rebuilding_now.discard(collection)
            self._rebuilt.add(collection)
            self._damaged.pop(collection, None)
        logger.warning("rebuilt the vector index of %s: %d records", collection, len(records))

    def _save_and_refill(self, collection: str, saved: Path, reason: str) -> list[Record]:
        """Save the collection's records beside the store (unless a cut-short rebuild did), refill it from
        them, and remove the saved file; the records."""
        assert self._folder is not None
        kept = "the folder set aside at opening" if collection in self._damaged else "none"
        if not saved.exists():
            segment = self._segments.get(collection) or _segment_now(self._folder, collection)
            if segment and (self._folder / segment).exists():  # then Chroma reads the records again
                kept = str(move_aside(self._folder / segment))
            atomic_write(saved, records_to_jsonl(self._stored_records(collection)))
        logger.warning(
            "the vector index of %s could not be loaded (%s); rebuilding it from its stored texts "
            "(the damaged files are kept in %s)",
            collection,
            reason,
            kept,
        )
        records = records_from_jsonl(saved.read_bytes())
        self._refill(collection, records)
        saved.unlink()
        return records

    def _stored_records(self, collection: str) -> list[Record]:
        """Every record of `collection`, oldest first (a turn is embedded after the one before it)."""
        _, handle = self._collection(collection)
        with self._translate(f"read {collection} to rebuild it"):
            stored = handle.get(include=["documents", "metadatas"])
        records = [
            Record(record_id, text or "", dict(metadata or {}))
            for record_id, text, metadata in zip(
                stored["ids"], stored["documents"], stored["metadatas"], strict=True
            )
        ]
        return sorted(records, key=lambda r: (float(r.metadata.get("created_at", 0.0) or 0.0), r.id))

    def _refill(self, collection: str, records: list[Record]) -> None:
        """Drop `collection`, make it again and add `records` with their vectors, as live writes embed."""
        spec, _ = self._collection(collection)
        with self._translate(f"drop {collection} to rebuild it"):
            self._client.delete_collection(collection)
        self.ensure_collections([spec])
        _, handle = self._collection(collection)
        embed = self.embed_for_rebuild
        for start in range(0, len(records), REBUILD_BATCH):
            batch = records[start : start + REBUILD_BATCH]
            vectors = embed(collection, batch) if embed else self.embedder.embed([r.text for r in batch])
            with self._translate(f"rebuild {collection}"):
                handle.add(
                    ids=[r.id for r in batch],
                    embeddings=list(checked_embeddings(vectors, len(batch), self.embedder.dim, collection)),
                    documents=[r.text for r in batch],
                    metadatas=[r.metadata or None for r in batch],
                )

    @contextlib.contextmanager
    def _translate(self, action: str) -> Iterator[None]:
        """Turn chromadb's many exception types into one `StorageError` with a readable message."""
        try:
            yield
        except DaemonError:
            raise
        except Exception as error:
            raise StorageError(f"Chroma ({self._where}): cannot {action}: {error}") from error


def records_to_jsonl(records: Sequence[Record]) -> bytes:
    """One JSON object per record: what a rebuild cut short resumes from."""
    lines = (
        json.dumps({"id": r.id, "text": r.text, "metadata": r.metadata}, ensure_ascii=False) for r in records
    )
    return "".join(f"{line}\n" for line in lines).encode("utf-8")


def records_from_jsonl(data: bytes) -> list[Record]:
    rows = (json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip())
    return [Record(row["id"], row["text"], row["metadata"]) for row in rows]


def _segment_now(folder: Path, collection: str) -> str | None:
    """A collection made after the store opened: its segment read now, beside the live client (rare)."""
    return next((s for s, name in vector_segments(folder).items() if name == collection), None)


def files_state(folder: Path) -> str:
    """A digest of every file under `folder`: relative path, size and modification time (ns)."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        with contextlib.suppress(FileNotFoundError):  # a file removed while listing is simply not there
            info = path.stat()
            if path.is_file():
                digest.update(f"{path.relative_to(folder)}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _stored_rows(stored: Any, with_vectors: bool) -> dict[str, tuple[str, dict[str, Any], Any]]:
    """id -> (text, metadata, vector or None) from a chromadb `get` result."""
    count = len(stored["ids"])
    texts = stored.get("documents") or [None] * count
    metadatas = stored.get("metadatas") or [None] * count
    vectors = stored.get("embeddings") if with_vectors else None
    return {
        record_id: (texts[i] or "", dict(metadatas[i] or {}), vectors[i] if vectors is not None else None)
        for i, record_id in enumerate(stored["ids"])
    }


def _differs(
    record: Record, previous: tuple[str, dict[str, Any], Any] | None, given: dict[str, Any] | None
) -> bool:
    if previous is None:
        return True
    text, metadata, vector = previous
    if text != record.text or metadata != record.metadata:
        return True
    if given is None:
        return False  # same text, same embedder (checked when the collection was opened): same vector
    import numpy as np

    return vector is None or not np.allclose(np.asarray(vector), given[record.id], atol=1e-6)


def _column(result: Any, key: str, size: int) -> list[Any]:
    values = result.get(key)
    return list(values[0]) if values and values[0] is not None else [None] * size


def _max_batch(client: Any) -> int:
    try:
        return int(client.get_max_batch_size())
    except Exception:
        return 5000  # SQLite's variable limit gives 5461 in practice; stay under it


def embedding_function(embedder: Embedder | None) -> Any:
    """A chromadb `EmbeddingFunction` that embeds with `embedder` (None: one that refuses to embed)."""
    return _embedding_function_class()(embedder)


def _embedding_function_class() -> type:
    """Our EmbeddingFunction subclass, defined once per process (chromadb's registry keeps it)."""
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
    from chromadb.utils.embedding_functions import known_embedding_functions, register_embedding_function

    existing = known_embedding_functions.get(EMBEDDING_FUNCTION_NAME)
    if existing is not None:
        return existing

    class DaemonEmbeddingFunction(EmbeddingFunction[Documents]):
        """Wraps a Daemon `Embedder`. Rebuilt from stored config it has no embedder and raises instead."""

        def __init__(self, embedder: Embedder | None, config: dict[str, Any] | None = None) -> None:
            self._embedder = embedder
            own = {"embedder": embedder.name, "dim": embedder.dim} if embedder is not None else None
            self._config = own or dict(config or {})

        def __call__(self, input: Documents) -> Embeddings:  # noqa: A002 - chromadb requires this name
            if self._embedder is None:
                raise StorageError(
                    "this Chroma collection was opened without Daemon's embedder "
                    f"({self._config.get('embedder', '?')}); open it through ChromaStore or pass embeddings. "
                    "Chroma's default embedding function is never used: it downloads a model."
                )
            return list(self._embedder.embed(list(input)))

        @staticmethod
        def name() -> str:
            return EMBEDDING_FUNCTION_NAME

        def get_config(self) -> dict[str, Any]:
            return dict(self._config)

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> DaemonEmbeddingFunction:
            return DaemonEmbeddingFunction(None, config)

        def default_space(self) -> Any:
            return "cosine"

        def supported_spaces(self) -> Any:
            return ["cosine"]

        def is_legacy(self) -> bool:
            return False

    register_embedding_function(DaemonEmbeddingFunction)
    return DaemonEmbeddingFunction
