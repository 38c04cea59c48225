"""Loader and validator for the project-authored seed benchmark (`seed_memories.yaml`).

The file holds the long-term memory of one fictional user (records for all 13 collections) and questions a
user would ask, each with the memories a good retrieval must return (`expected`), other correct answers that
count as hits but are not required (`acceptable`) and memories that must stay out of the top k (`must_not`).

`load_seed` turns the YAML into frozen dataclasses and refuses a file with any problem, listing all of them:
unknown or duplicate keys, a collection that is not one of the 13, metadata that
`memory.collections.validate_metadata` rejects, a case that names a missing memory, an unknown intent or
kind, k < 1. Timestamps are written in the YAML as ISO-8601 (UTC) for people, and stored in the metadata as
the epoch seconds (float) that the collection schemas declare. Cross-references between memories
(`superseded_by`, `source_ids`, `cited_ids`) are written as seed keys and become record ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import yaml

from memory.collections import (
    COLLECTION_NAMES,
    CollectionSpec,
    MetadataError,
    Scalar,
    get_spec,
    make_id,
    validate_metadata,
)

DEFAULT_PATH = Path(__file__).with_name("seed_memories.yaml")
INTENTS = (
    "factual_recall",
    "temporal_recall",
    "emotional_support",
    "casual_social",
    "technical_help",
    "creative_exploration",
    "meta_conversational",
    "project_work",
    "general",
)
KINDS = ("single_fact", "multi_item", "temporal_window", "hard_negative", "cross_collection")
# float fields that hold a moment in time (besides every `*_at` field)
_TIME_FIELDS = frozenset(
    {"span_start", "span_end", "deadline", "file_mtime", "last_accessed", "last_retrieved"}
)
_KEY_REFERENCES = ("superseded_by",)
_KEY_LIST_REFERENCES = ("source_ids", "cited_ids")
_MEMORY_KEYS = frozenset({"key", "collection", "text", "metadata"})
_CASE_KEYS = frozenset(
    {"id", "intent", "kind", "query", "now", "window", "expected", "acceptable", "must_not", "k", "note"}
)
_TOP_KEYS = frozenset({"version", "reference_now", "profile", "memories", "cases"})


class SeedError(ValueError):
    """The seed file is malformed; the message lists every problem found."""


@dataclass(frozen=True)
class SeedMemory:
    """One record to store: `metadata` is already in stored form (validated, epoch-second timestamps)."""

    key: str
    collection: str
    text: str
    metadata: dict[str, Scalar] = field(hash=False)

    @property
    def record_id(self) -> str:
        """The record id to store it under: stable, derived from the collection and the seed key."""
        return seed_record_id(self.collection, self.key)

    @property
    def created_at(self) -> float:
        return float(self.metadata["created_at"])


@dataclass(frozen=True)
class SeedCase:
    """One question with the memories it must (and must not) bring back within the top `k`."""

    id: str
    intent: str
    query: str
    now: float
    expected: tuple[str, ...]
    must_not: tuple[str, ...]
    k: int
    note: str = ""
    kind: str = "single_fact"
    acceptable: tuple[str, ...] = ()
    window: tuple[float, float] | None = None

    @property
    def now_datetime(self) -> datetime:
        """`now` as an aware UTC datetime."""
        return datetime.fromtimestamp(self.now, tz=UTC)

    @property
    def relevant(self) -> frozenset[str]:
        """Every key that counts as a correct answer (expected or acceptable), e.g. for MRR."""
        return frozenset(self.expected) | frozenset(self.acceptable)


@dataclass(frozen=True)
class SeedSet:
    """The loaded data set."""

    reference_now: float
    memories: tuple[SeedMemory, ...]
    cases: tuple[SeedCase, ...]

    def memory(self, key: str) -> SeedMemory:
        return self.by_key()[key]

    def by_key(self) -> dict[str, SeedMemory]:
        return {memory.key: memory for memory in self.memories}

    def key_of(self, record_id: str) -> str | None:
        """The seed key of a stored record id, or None for a record that is not a seed memory."""
        return {memory.record_id: memory.key for memory in self.memories}.get(record_id)

    def in_collection(self, collection: str) -> tuple[SeedMemory, ...]:
        return tuple(memory for memory in self.memories if memory.collection == collection)


def seed_record_id(collection: str, key: str) -> str:
    """The stable record id of a seed memory (a content-derived id over collection and key)."""
    return make_id(collection, "seed", key)


def to_epoch(value: object) -> float:
    """Epoch seconds from an ISO-8601 string, a datetime/date (naive means UTC) or a number."""
    if isinstance(value, bool):
        raise ValueError(f"not a time: {value!r}")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if isinstance(value, date) and not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()
    raise ValueError(f"not a time: {value!r}")


def is_time_field(name: str) -> bool:
    return name.endswith("_at") or name in _TIME_FIELDS


def load_seed(path: str | Path = DEFAULT_PATH) -> SeedSet:
    """Load and validate the seed file; raise `SeedError` listing every problem."""
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise SeedError(f"{path}: not valid YAML: {error}") from None
    errors: list[str] = []
    if not isinstance(raw, dict):
        raise SeedError(f"{path}: expected a mapping at the top level")
    errors += [f"unknown top-level field {name!r}" for name in sorted(set(raw) - _TOP_KEYS)]
    try:
        reference_now = to_epoch(raw.get("reference_now"))
    except ValueError as error:
        raise SeedError(f"{path}: reference_now: {error}") from None
    raw_memories = raw.get("memories") or []
    keys = _memory_keys(raw_memories, errors)
    memories = [m for m in (_memory(entry, keys, errors) for entry in raw_memories) if m is not None]
    cases = _cases(raw.get("cases") or [], keys, reference_now, errors)
    if errors:
        raise SeedError(f"{path}: {len(errors)} problem(s):\n  " + "\n  ".join(errors))
    return SeedSet(reference_now, tuple(memories), tuple(cases))


def _memory_keys(entries: list[Any], errors: list[str]) -> dict[str, str]:
    """key -> collection for every well-formed entry; duplicates reported."""
    keys: dict[str, str] = {}
    for index, entry in enumerate(entries):
        key = entry.get("key") if isinstance(entry, dict) else None
        if not isinstance(key, str) or not key:
            errors.append(f"memory #{index}: missing key")
        elif key in keys:
            errors.append(f"memory {key}: duplicate key")
        else:
            keys[key] = str(entry.get("collection"))
    return keys


def _memory(entry: Any, keys: Mapping[str, str], errors: list[str]) -> SeedMemory | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
        return None
    key = entry["key"]
    problems = [f"unknown field {name!r}" for name in sorted(set(entry) - _MEMORY_KEYS)]
    collection, text = entry.get("collection"), entry.get("text")
    if collection not in COLLECTION_NAMES:
        problems.append(f"collection {collection!r} is not one of {', '.join(COLLECTION_NAMES)}")
    if not isinstance(text, str) or not text.strip():
        problems.append("empty text")
    metadata = entry.get("metadata")
    if not isinstance(metadata, dict):
        problems.append("metadata must be a mapping")
    if problems:
        errors += [f"memory {key}: {problem}" for problem in problems]
        return None
    # No problems means the checks above held: narrow for the type checker.
    assert isinstance(collection, str) and isinstance(text, str) and isinstance(metadata, dict)
    spec = get_spec(collection)
    try:
        stored = validate_metadata(spec, _prepare(spec, metadata, keys))
    except (MetadataError, ValueError) as error:
        errors.append(f"memory {key}: {error}")
        return None
    return SeedMemory(key, collection, text.strip(), stored)


def _prepare(spec: CollectionSpec, metadata: Mapping[str, Any], keys: Mapping[str, str]) -> dict[str, Any]:
    """Times to epoch seconds and seed-key references to record ids, before schema validation."""
    out = dict(metadata)
    for name, value in metadata.items():
        declared = spec.field(name)
        if declared is not None and declared.kind == "float" and is_time_field(name):
            out[name] = to_epoch(value)
        elif name in _KEY_REFERENCES and value is not None:
            out[name] = _reference(name, value, keys)
        elif name in _KEY_LIST_REFERENCES and isinstance(value, list):
            out[name] = [_reference(name, item, keys) for item in value]
    return out


def _reference(name: str, key: object, keys: Mapping[str, str]) -> str:
    if not isinstance(key, str) or key not in keys:
        raise ValueError(f"{name}: {key!r} is not the key of a seed memory")
    return seed_record_id(keys[key], key)


def _cases(entries: list[Any], keys: Mapping[str, str], now: float, errors: list[str]) -> list[SeedCase]:
    cases: list[SeedCase] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        case_id = entry.get("id") if isinstance(entry, dict) else None
        if not isinstance(case_id, str) or not case_id:
            errors.append(f"case #{index}: missing id")
            continue
        if case_id in seen:
            errors.append(f"case {case_id}: duplicate id")
        seen.add(case_id)
        problems: list[str] = []
        case = _case(entry, keys, now, problems)
        errors += [f"case {case_id}: {problem}" for problem in problems]
        if case is not None and not problems:
            cases.append(case)
    return cases


def _key_list(
    entry: Mapping[str, Any], name: str, keys: Mapping[str, str], problems: list[str]
) -> tuple[str, ...]:
    value = entry.get(name) or []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        problems.append(f"{name} must be a list of memory keys")
        return ()
    problems += [f"{name}: unknown memory key {item!r}" for item in value if item not in keys]
    if len(set(value)) != len(value):
        problems.append(f"{name} lists a key twice")
    return tuple(value)


def _case(entry: dict[str, Any], keys: Mapping[str, str], now: float, problems: list[str]) -> SeedCase | None:
    problems += [f"unknown field {name!r}" for name in sorted(set(entry) - _CASE_KEYS)]
    intent, kind, query, k = entry.get("intent"), entry.get("kind"), entry.get("query"), entry.get("k")
    if intent not in INTENTS:
        problems.append(f"intent {intent!r} is not one of {', '.join(INTENTS)}")
    if kind not in KINDS:
        problems.append(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    if not isinstance(query, str) or not query.strip():
        problems.append("empty query")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        problems.append(f"k must be an integer >= 1, got {k!r}")
    lists = {name: _key_list(entry, name, keys, problems) for name in ("expected", "acceptable", "must_not")}
    if not lists["expected"]:
        problems.append("expected is empty")
    for first, second in (("expected", "acceptable"), ("expected", "must_not"), ("acceptable", "must_not")):
        both = set(lists[first]) & set(lists[second])
        if both:
            problems.append(f"{sorted(both)} both in {first} and {second}")
    window = _window(entry.get("window"), problems)
    try:
        case_now = to_epoch(entry["now"]) if entry.get("now") is not None else now
    except ValueError as error:
        problems.append(f"now: {error}")
        return None
    if problems:
        return None
    # No problems means the checks above held: narrow for the type checker.
    assert isinstance(intent, str) and isinstance(kind, str) and isinstance(query, str) and isinstance(k, int)
    return SeedCase(
        id=entry["id"],
        intent=intent,
        query=query.strip(),
        now=case_now,
        expected=lists["expected"],
        must_not=lists["must_not"],
        k=k,
        note=str(entry.get("note") or "").strip(),
        kind=kind,
        acceptable=lists["acceptable"],
        window=window,
    )


def _window(value: object, problems: list[str]) -> tuple[float, float] | None:
    if value is None:
        return None
    try:
        if not isinstance(value, list) or len(value) != 2:
            raise ValueError("expected [start, end]")
        start, end = to_epoch(value[0]), to_epoch(value[1])
    except ValueError as error:
        problems.append(f"window: {error}")
        return None
    if start >= end:
        problems.append("window: start must be before end")
    return start, end
