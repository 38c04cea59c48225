"""The vector store port: value types, the `VectorStore` protocol and the `where` filter subset.

Implementations: `memory.chroma_store.ChromaStore` (embedded or server) and
`memory.inmemory_store.InMemoryStore` (numpy, for unit tests). One contract suite
(`tests/contract/test_vector_store_contract.py`) holds them to the same semantics.

Similarity is cosine: `Hit.similarity = 1 - Hit.distance`, where `distance` is Chroma's cosine distance.
Metadata values are str, int, float or bool only; `None` is dropped and lists/dicts become JSON strings
(see `memory.collections.validate_metadata`, which every store applies before writing).

`where` filters accept a subset of Chroma's syntax, checked and normalised by `normalise_where`:
    {"field": value}                         equality (same as {"field": {"$eq": value}})
    {"field": {"$ne": value}}                inequality; also true when the field is absent
    {"field": {"$in": [v, ...]}}             one of (non-empty list, all of one type); "$nin" negates
    {"field": {"$gte": 3, "$lt": 7.5}}       numeric ranges ($gt, $gte, $lt, $lte); several ops are ANDed
    {"$and": [...]}, {"$or": [...]}          combinations; a dict with several fields means $and
Ints and floats compare by value (1 == 1.0); bools only equal bools; ranges never match strings or bools.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from core.errors import StorageError
from memory.collections import CollectionSpec, Scalar

if TYPE_CHECKING:
    import numpy as np

    from memory.embeddings import Embedder

Metadata = dict[str, Scalar]
Where = dict[str, Any]
_RANGE = ("$gt", "$gte", "$lt", "$lte")
_VALUE_OPS = ("$eq", "$ne", "$in", "$nin", *_RANGE)


class UnknownCollectionError(StorageError):
    """A call named a collection that `ensure_collections` has not opened."""


class FilterError(StorageError):
    """A `where` filter is outside the supported subset."""


@dataclass(frozen=True)
class Record:
    """A stored item: its id, its text (the embedded document) and its flat metadata."""

    id: str
    text: str
    metadata: Metadata = field(default_factory=dict)


@dataclass(frozen=True)
class Hit:
    """A query result. `distance` is cosine distance; `similarity` = 1 - distance (higher is closer)."""

    id: str
    collection: str
    text: str
    metadata: Metadata
    distance: float

    @property
    def similarity(self) -> float:
        return 1.0 - self.distance


class VectorStore(Protocol):
    """Collections of embedded texts. Methods are synchronous; callers run them in worker threads.

    Nothing in Daemon deletes memories automatically: `delete` exists only for explicit user requests
    (`purge`), and every other write is an idempotent `upsert` keyed by a content-derived id.
    """

    embedder: Embedder

    def ensure_collections(self, specs: Sequence[CollectionSpec]) -> None:
        """Open (creating if needed) these collections; every other method needs this first."""
        ...

    def upsert(
        self, collection: str, records: Sequence[Record], embeddings: np.ndarray | None = None
    ) -> None:
        """Insert or replace records by id (the last of duplicate ids wins). Metadata is validated
        against the collection's spec. Without `embeddings` the store embeds the texts in batches."""
        ...

    def query(
        self, collection: str, query_embedding: np.ndarray, k: int, where: Where | None = None
    ) -> list[Hit]:
        """The `k` nearest records, most similar first; [] for an empty collection or k <= 0."""
        ...

    def get(
        self,
        collection: str,
        ids: Sequence[str] | None = None,
        where: Where | None = None,
        limit: int | None = None,
    ) -> list[Record]:
        """Records by id (in the order asked, missing ids skipped) and/or by filter (store order)."""
        ...

    def get_with_vectors(
        self, collection: str, ids: Sequence[str] | None = None, where: Where | None = None
    ) -> list[tuple[Record, np.ndarray]]:
        """Records with their stored unit vectors in one read: by id, or every record when ids is None."""
        ...

    def count(self, collection: str) -> int:
        """Number of records in one collection."""
        ...

    def counts(self) -> dict[str, int]:
        """Number of records per open collection."""
        ...

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Remove records by id. Only for explicit user requests; nothing calls it automatically."""
        ...

    def close(self) -> None:
        """Release the store's resources; the store is unusable afterwards."""
        ...

    def warm(self, collections: Sequence[str]) -> None:
        """Load these collections' indexes ahead of their first use, in the background where the store
        can (stopped by `close`); only a hint: every other method works whether or not it has run."""
        ...

    def opened_state(self) -> str | None:
        """A digest of the store's files as this store found them, before opening them; None when
        something other than this process may change the store (a server) or nothing is on disk."""
        ...

    def closed_state(self) -> str | None:
        """The same digest of the files as `close` left them (None before `close`, or as above). When
        the next process's `opened_state` equals it, nothing changed the store in between."""
        ...


def normalise_where(where: Mapping[str, Any] | None) -> Where | None:
    """Check `where` against the supported subset and return the canonical form Chroma accepts.

    Canonical: every leaf is `{field: {op: operand}}` with one op, `$and`/`$or` hold at least two
    clauses. Returns None for no filter. Raises `FilterError` with the offending part.
    """
    if where is None or (isinstance(where, Mapping) and not where):
        return None
    if not isinstance(where, Mapping):
        raise FilterError(f"a where filter must be a dict, got {type(where).__name__}")
    clauses: list[Where] = []
    for key, value in where.items():
        if key in ("$and", "$or"):
            clauses.append(_logical(key, value))
        elif not isinstance(key, str) or not key or key.startswith(("$", "#")):
            raise FilterError(f"unsupported where key {key!r}; use a field name, '$and' or '$or'")
        else:
            clauses.extend(_field_clauses(key, value))
    return _combine("$and", clauses)


def _logical(op: str, value: Any) -> Where:
    if not isinstance(value, list | tuple) or not value:
        raise FilterError(f"{op} needs a non-empty list of filters, got {value!r}")
    parts = [normalise_where(item) for item in value]
    if any(part is None for part in parts):
        raise FilterError(f"{op} contains an empty filter: {value!r}")
    return _combine(op, [part for part in parts if part is not None])


def _combine(op: str, clauses: list[Where]) -> Where:
    return clauses[0] if len(clauses) == 1 else {op: clauses}


def _field_clauses(name: str, value: Any) -> list[Where]:
    if not isinstance(value, Mapping):
        return [{name: {"$eq": _scalar_operand(name, "$eq", value)}}]
    if not value:
        raise FilterError(f"empty operator dict for field {name!r}")
    out: list[Where] = []
    for op, operand in value.items():
        if op not in _VALUE_OPS:
            raise FilterError(f"unsupported operator {op!r} on {name!r}; supported: {', '.join(_VALUE_OPS)}")
        if op in ("$in", "$nin"):
            out.append({name: {op: _list_operand(name, op, operand)}})
        elif op in _RANGE:
            if not _is_number(operand):
                raise FilterError(f"{name} {op} needs a number, got {operand!r}")
            out.append({name: {op: operand}})
        else:
            out.append({name: {op: _scalar_operand(name, op, operand)}})
    return out


def _scalar_operand(name: str, op: str, operand: Any) -> Scalar:
    if isinstance(operand, str | bool) or _is_number(operand):
        return operand
    raise FilterError(f"{name} {op} needs a str, int, float or bool, got {operand!r}")


def _list_operand(name: str, op: str, operand: Any) -> list[Scalar]:
    if not isinstance(operand, list | tuple) or not operand:
        raise FilterError(f"{name} {op} needs a non-empty list, got {operand!r}")
    values = [_scalar_operand(name, op, item) for item in operand]
    if len({type(item) for item in values}) != 1:
        raise FilterError(f"{name} {op}: all values must have one type, got {operand!r}")
    return values


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _equal(value: Any, operand: Any) -> bool:
    if isinstance(value, bool) or isinstance(operand, bool):
        return isinstance(value, bool) and isinstance(operand, bool) and value == operand
    if _is_number(value) and _is_number(operand):
        return float(value) == float(operand)
    return type(value) is type(operand) and value == operand


def _compare(op: str, value: Any, operand: Any) -> bool:
    if not (_is_number(value) and _is_number(operand)):
        return False
    if op == "$gt":
        return value > operand
    if op == "$gte":
        return value >= operand
    if op == "$lt":
        return value < operand
    return value <= operand


def where_matches(where: Where | None, metadata: Mapping[str, Any]) -> bool:
    """Evaluate a canonical filter (from `normalise_where`) on one record, with Chroma's semantics."""
    if not where:
        return True
    ((key, value),) = where.items()
    if key == "$and":
        return all(where_matches(clause, metadata) for clause in value)
    if key == "$or":
        return any(where_matches(clause, metadata) for clause in value)
    ((op, operand),) = value.items()
    present = key in metadata
    actual = metadata.get(key)
    if op == "$eq":
        return present and _equal(actual, operand)
    if op == "$ne":
        return not (present and _equal(actual, operand))
    if op == "$in":
        return present and any(_equal(actual, item) for item in operand)
    if op == "$nin":
        return not (present and any(_equal(actual, item) for item in operand))
    return present and _compare(op, actual, operand)


def dedupe_records(records: Sequence[Record]) -> list[Record]:
    """Records with unique ids, the last occurrence winning, in first-seen order."""
    latest: dict[str, Record] = {}
    for record in records:
        if not isinstance(record.id, str) or not record.id:
            raise StorageError(f"a record id must be a non-empty string, got {record.id!r}")
        latest[record.id] = record
    return list(latest.values())


def checked_embeddings(vectors: Any, rows: int, dim: int, what: str) -> np.ndarray:
    """`vectors` as a finite float32 (rows, dim) array, or a `StorageError` saying what is wrong."""
    import numpy as np

    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1 and rows == 1:
        array = array.reshape(1, -1)
    if array.shape != (rows, dim):
        raise StorageError(f"{what}: expected embeddings of shape ({rows}, {dim}), got {array.shape}")
    if not np.isfinite(array).all():
        raise StorageError(f"{what}: embeddings contain NaN or infinity")
    return array
