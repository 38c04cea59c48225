"""The dedup scanner: finds near-duplicate records and contradicting facts and proposes them for review.

It never changes a store. `DedupScanner.scan` returns `ReviewItem`s; the caller queues them
(`ReviewQueue.propose`) and the user decides (see `memory.review`). The original system deleted
duplicates itself in user mode; here a proposal is all a scan can produce.

- Duplicates: records of one collection whose cosine similarity is at least `duplicate_threshold` (0.92).
  The similarity matrix is computed in row blocks of at most `block_cells` entries over the upper triangle
  only, so 20k records never build a 20k x 20k matrix. A record is never paired with itself.
- Contradictions: in `facts`, current facts with the same subject and predicate but different objects
  (compared case- and punctuation-insensitively), one item per pair. `contradiction_predicates` can limit
  this to single-valued relations (`core.relations.FUNCTIONAL_RELATIONS`): "likes pizza" and "likes
  sushi" are both true, and every false proposal costs the user attention.
- Not across collections, on purpose: a fact, the summary sentence that mentions it and the reflection
  that draws on it are different kinds of memory that legitimately repeat each other; hiding one of them
  would degrade the tier it belongs to. Each collection is scanned on its own.
- Skipped: pairs already in the queue with any status (so dismissed pairs never come back and a re-scan
  proposes nothing new) and records that are currently hidden.
- Bounded: at most `max_pairs_per_collection` duplicate items per collection per scan, the most similar
  first; the next scan proposes the following ones (the first are then known).
"""

from __future__ import annotations

import heapq
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from core.relations import normalize
from memory.facts.model import subject_key
from memory.review import CONTRADICTION, DUPLICATE, ReviewItem, ReviewQueue, item_id

if TYPE_CHECKING:
    import numpy as np

    from memory.vector_store import VectorStore

logger = logging.getLogger(__name__)

FACTS = "facts"
# Collections a scan covers by default. Conversations are left out (saying "thanks" on two days is two
# events, not a duplicate), and so are documents, wiki chunks, commits and images (external sources,
# already de-duplicated by content hash on ingest).
DEFAULT_SCAN_COLLECTIONS = ("facts", "summaries", "procedural_skills", "reflections", "proposals")


class ScanRecord(NamedTuple):
    """One record as the scanner sees it: id, text, embedding vector, metadata."""

    id: str
    text: str
    vector: Any
    metadata: Mapping[str, Any]


RecordLike = ScanRecord | tuple[str, str, Any, Mapping[str, Any]]


@dataclass(frozen=True)
class DedupSettings:
    """Thresholds and bounds of a scan."""

    duplicate_threshold: float = 0.92
    block_cells: int = 2_000_000  # largest similarity block (float32: 8 MB)
    max_pairs_per_collection: int = 1000
    contradiction_collection: str = FACTS
    contradiction_predicates: frozenset[str] | None = None  # None: every predicate

    def __post_init__(self) -> None:
        if not 0.0 < self.duplicate_threshold <= 1.0:
            raise ValueError(f"duplicate_threshold must be in (0, 1], got {self.duplicate_threshold}")
        if self.block_cells < 1 or self.max_pairs_per_collection < 1:
            raise ValueError("block_cells and max_pairs_per_collection must be at least 1")


@dataclass(frozen=True)
class ScanStats:
    """What a scan looked at: records, new items, the largest similarity block built, seconds taken."""

    records: int = 0
    duplicates: int = 0
    contradictions: int = 0
    largest_block: tuple[int, int] = (0, 0)
    seconds: float = 0.0


class Block(NamedTuple):
    """The pairs (i < j) of one similarity block at or above the threshold, and the block's shape."""

    rows: np.ndarray
    cols: np.ndarray
    scores: np.ndarray
    shape: tuple[int, int]


def similar_pairs(matrix: np.ndarray, threshold: float, block_cells: int) -> Iterator[Block]:
    """Pairs of rows of `matrix` (unit vectors) with cosine >= threshold, each pair once (i < j).

    Rows are taken in blocks of `block_cells // n` and compared only with themselves and later rows, so no
    block holds more than max(block_cells, n) entries and nothing is computed twice."""
    import numpy as np

    n = len(matrix)
    step = max(1, block_cells // max(n, 1))
    for start in range(0, n, step):
        stop = min(n, start + step)
        sims = matrix[start:stop] @ matrix[start:].T
        local_rows, local_cols = np.nonzero(sims >= threshold)
        upper = local_cols > local_rows  # drops each row's pairing with itself and the mirrored half
        local_rows, local_cols = local_rows[upper], local_cols[upper]
        yield Block(local_rows + start, local_cols + start, sims[local_rows, local_cols], sims.shape)


def read_collections(
    store: VectorStore, collections: Sequence[str] = DEFAULT_SCAN_COLLECTIONS
) -> dict[str, list[ScanRecord]]:
    """Every record of these collections with its stored vector, in one read per collection."""
    return {
        name: [
            ScanRecord(record.id, record.text, vector, record.metadata)
            for record, vector in store.get_with_vectors(name)
        ]
        for name in collections
    }


class DedupScanner:
    """Finds duplicate and contradiction proposals; knows the queue only to skip what it already holds."""

    def __init__(
        self,
        queue: ReviewQueue | None = None,
        settings: DedupSettings | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._queue = queue
        self.settings = settings or DedupSettings()
        self._clock = clock

    def scan(self, collection_items: Mapping[str, Sequence[RecordLike]]) -> list[ReviewItem]:
        """New proposals for these collections (collection -> (id, text, vector, metadata) records)."""
        return self.scan_with_stats(collection_items)[0]

    def scan_store(
        self, store: VectorStore, collections: Sequence[str] = DEFAULT_SCAN_COLLECTIONS
    ) -> list[ReviewItem]:
        """New proposals for these collections of a vector store. Reads only; the store is not changed."""
        return self.scan(read_collections(store, collections))

    def scan_with_stats(
        self, collection_items: Mapping[str, Sequence[RecordLike]]
    ) -> tuple[list[ReviewItem], ScanStats]:
        """`scan`, with what it looked at."""
        began = time.perf_counter()
        items: list[ReviewItem] = []
        total, largest = 0, (0, 0)
        for collection, raw in collection_items.items():
            records = self._visible(collection, raw)
            total += len(records)
            known = self._queue.known_ids(collection) if self._queue is not None else set()
            found, block = self._duplicates(collection, records, known)
            largest = max(largest, block, key=lambda shape: shape[0] * shape[1])
            items.extend(found)
            if collection == self.settings.contradiction_collection:
                items.extend(self._contradictions(collection, records, known))
        duplicates = sum(item.kind == DUPLICATE for item in items)
        stats = ScanStats(total, duplicates, len(items) - duplicates, largest, time.perf_counter() - began)
        return items, stats

    def _visible(self, collection: str, raw: Sequence[RecordLike]) -> list[ScanRecord]:
        """The collection's records by id (the last one wins), without those currently hidden."""
        hidden = self._queue.hidden.hidden_ids(collection) if self._queue is not None else set()
        unique = {record[0]: ScanRecord(*record) for record in raw}
        return [record for record_id, record in unique.items() if record_id not in hidden]

    def _duplicates(
        self, collection: str, records: Sequence[ScanRecord], known: set[str]
    ) -> tuple[list[ReviewItem], tuple[int, int]]:
        if len(records) < 2:
            return [], (0, 0)
        ids = [record.id for record in records]
        cap = self.settings.max_pairs_per_collection
        found: list[tuple[float, str, str]] = []
        largest = (0, 0)
        matrix = _unit_rows(collection, records)
        for block in similar_pairs(matrix, self.settings.duplicate_threshold, self.settings.block_cells):
            largest = max(largest, block.shape, key=lambda shape: shape[0] * shape[1])
            for score, i, j in _best(block, cap + len(known)):
                if item_id(DUPLICATE, collection, (ids[i], ids[j])) not in known:
                    found.append((score, ids[i], ids[j]))
            if len(found) > 2 * cap:
                found = heapq.nlargest(cap, found)
        best = heapq.nlargest(cap, found)
        if len(found) > cap:
            logger.info("dedup: %d duplicate pairs in %s; proposing the %d best", len(found), collection, cap)
        now = self._clock()
        items = [
            ReviewItem.propose(
                DUPLICATE,
                collection,
                (a, b),
                f"near-duplicate {collection} records (cosine {score:.3f})",
                score=round(score, 4),
                created_at=now,
            )
            for score, a, b in best
        ]
        return items, largest

    def _contradictions(
        self, collection: str, records: Sequence[ScanRecord], known: set[str]
    ) -> list[ReviewItem]:
        now = self._clock()
        out: list[ReviewItem] = []
        for predicate, first, second in contradiction_pairs(records, self.settings.contradiction_predicates):
            if item_id(CONTRADICTION, collection, (first, second)) in known:
                continue
            why = f"two current facts with the same subject and predicate {predicate!r}, different objects"
            out.append(ReviewItem.propose(CONTRADICTION, collection, (first, second), why, created_at=now))
        return out


def contradiction_pairs(
    records: Sequence[ScanRecord], predicates: frozenset[str] | None = None
) -> Iterator[tuple[str, str, str]]:
    """(predicate, id, id) for each pair of current facts with the same subject and predicate and
    different objects. Facts that differ only in case or punctuation of the object are not a pair."""
    groups: dict[tuple[str, str], dict[str, list[str]]] = {}
    for record in records:
        meta = record.metadata
        subject, predicate, obj = meta.get("subject"), meta.get("predicate"), meta.get("object")
        if meta.get("status") != "current":
            continue
        if not (isinstance(subject, str) and isinstance(predicate, str) and isinstance(obj, str)):
            continue
        relation = predicate.strip().lower()
        if predicates is not None and relation not in predicates:
            continue
        by_object = groups.setdefault((subject_key(subject), relation), {})
        by_object.setdefault(normalize(obj), []).append(record.id)
    for (_, relation), by_object in sorted(groups.items()):
        objects = sorted(by_object)
        for index, first in enumerate(objects):
            for second in objects[index + 1 :]:
                for a in by_object[first]:
                    for b in by_object[second]:
                        yield relation, a, b


def _best(block: Block, limit: int) -> list[tuple[float, int, int]]:
    """The block's pairs as (score, i, j), only the `limit` most similar when there are more."""
    import numpy as np

    rows, cols, scores = block.rows, block.cols, block.scores
    if len(scores) > limit:
        top = np.argpartition(-scores, limit - 1)[:limit]
        rows, cols, scores = rows[top], cols[top], scores[top]
    return list(zip(scores.tolist(), rows.tolist(), cols.tolist(), strict=True))


def _unit_rows(collection: str, records: Sequence[ScanRecord]) -> np.ndarray:
    """The vectors as a float32 matrix of unit rows (a zero vector stays zero: it matches nothing)."""
    import numpy as np

    vectors = [np.asarray(record.vector, dtype=np.float32).ravel() for record in records]
    dims = {len(vector) for vector in vectors}
    if len(dims) != 1:
        raise ValueError(f"dedup: vectors of {collection} have different dimensions {sorted(dims)}")
    matrix = np.stack(vectors)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
